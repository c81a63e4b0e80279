//! Turning accessor data, once per accessor, without touching anything else.
//!
//! Three ways, chosen per accessor (see [`turn_accessors`]):
//!
//! 1. **In place**: a dense `FLOAT` accessor whose bytes no other accessor or buffer view
//!    shares has the sign bit of each component the turn negates flipped, in a copy of its
//!    buffer. Layout, stride and interleaving stay; every other byte stays as it was. `min`
//!    and `max` are turned by the same rule (a negated component's new minimum is its old
//!    maximum negated).
//! 2. **Rewritten**: a sparse, integer, normalized or byte-sharing accessor is decoded
//!    ([`accessor::read_f32`]), turned and written as dense `FLOAT` data into one new buffer
//!    appended to the document; the accessor keeps its index and points at the new data.
//! 3. **Copied**: an accessor used both where its data turns and where it must not (rare) is
//!    left as it was for the uses that do not turn, and a turned copy (as in 2) is added for
//!    the others.
//!
//! Whether two accessors share bytes is decided exactly for accessors with the same stride
//! (interleaved attributes do not share bytes) and conservatively otherwise.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::turn::{self, Turn};
use super::uses::Use;
use crate::error::{Diagnostics, Error, Location};
use crate::formats::gltf::accessor::{self, ComponentType, ElementType};
use crate::formats::gltf::json::{Accessor, Buffer, BufferView, Float, Get, Index, Ordered, Root};
use crate::formats::gltf::{Container, Document, Source};

/// `FLOAT` (5126).
const FLOAT: u32 = 5126;

/// Bytes a buffer view or an accessor covers in its buffer.
#[derive(Debug, Clone, Copy)]
struct Footprint {
    owner: Owner,
    buffer: u32,
    start: u64,
    end: u64,
    /// Bytes between element starts; 0 for a contiguous range.
    stride: u64,
    /// Bytes per element.
    size: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    Accessor(u32),
    View(u32),
}

/// Whether two footprints share a byte (conservatively `true` when unsure).
fn overlaps(a: &Footprint, b: &Footprint) -> bool {
    if a.buffer != b.buffer || a.end <= b.start || b.end <= a.start {
        return false;
    }
    let s = a.stride;
    if s == 0 || s != b.stride || a.size > s || b.size > s {
        return true;
    }
    // Both repeat with period s: their element intervals meet iff they meet on a circle of
    // length s.
    let (ra, rb) = (a.start % s, b.start % s);
    (rb + s - ra) % s < a.size || (ra + s - rb) % s < b.size
}

/// The footprint of an accessor's dense part, `None` when it has no buffer view.
fn accessor_footprint(root: &Root, a: u32, accessor: &Accessor) -> Option<Footprint> {
    let view_index = accessor.buffer_view?;
    let view = root.get(view_index)?;
    let view_start = view.byte_offset.unwrap_or(0);
    let types = ComponentType::from_code(accessor.component_type)
        .zip(ElementType::parse(&accessor.element_type));
    let Some((component, element)) = types else {
        // Unknown types: the whole view, which overlaps anything in it.
        return Some(view_footprint(Owner::Accessor(a), view));
    };
    let size = accessor::element_size(element, component);
    let stride = view.byte_stride.unwrap_or(size);
    let start = view_start.saturating_add(accessor.byte_offset.unwrap_or(0));
    let end = match accessor.count {
        0 => start,
        n => start
            .saturating_add(stride.saturating_mul(n - 1))
            .saturating_add(size),
    };
    Some(Footprint {
        owner: Owner::Accessor(a),
        buffer: view.buffer.get(),
        start,
        end,
        stride,
        size,
    })
}

fn view_footprint(owner: Owner, view: &BufferView) -> Footprint {
    let start = view.byte_offset.unwrap_or(0);
    Footprint {
        owner,
        buffer: view.buffer.get(),
        start,
        end: start.saturating_add(view.byte_length),
        stride: 0,
        size: 0,
    }
}

/// Every byte range something in the document reads: accessors' elements, sparse index and
/// value views, image views, and whole buffer views no accessor reads (an extension's data).
fn footprints(root: &Root) -> Vec<Footprint> {
    let mut prints = Vec::new();
    let mut read_by_accessor = HashSet::new();
    let mut whole_views = HashSet::new();
    for (a, accessor) in root.accessors.iter().enumerate() {
        let Ok(a) = u32::try_from(a) else { break };
        if let Some(print) = accessor_footprint(root, a, accessor) {
            prints.push(print);
        }
        if let Some(view) = accessor.buffer_view {
            read_by_accessor.insert(view.get());
        }
        if let Some(sparse) = &accessor.sparse {
            whole_views.insert(sparse.indices.buffer_view.get());
            whole_views.insert(sparse.values.buffer_view.get());
        }
    }
    for image in &root.images {
        if let Some(view) = image.buffer_view {
            whole_views.insert(view.get());
        }
    }
    for (v, view) in root.buffer_views.iter().enumerate() {
        let Ok(v) = u32::try_from(v) else { break };
        if whole_views.contains(&v) || !read_by_accessor.contains(&v) {
            prints.push(view_footprint(Owner::View(v), view));
        }
    }
    prints
}

/// The accessors whose bytes something else also reads (sweep over footprints sorted by
/// start; only footprints still open are compared).
fn aliased_accessors(root: &Root) -> HashSet<u32> {
    let mut prints = footprints(root);
    prints.retain(|p| p.end > p.start);
    prints.sort_by_key(|p| (p.buffer, p.start));
    let mut aliased = HashSet::new();
    let mut open: Vec<Footprint> = Vec::new();
    for print in prints {
        open.retain(|o| o.buffer == print.buffer && o.end > print.start);
        for other in &open {
            if other.owner != print.owner && overlaps(other, &print) {
                for owner in [other.owner, print.owner] {
                    if let Owner::Accessor(a) = owner {
                        aliased.insert(a);
                    }
                }
            }
        }
        open.push(print);
    }
    aliased
}

/// New dense float data, gathered into one buffer appended at the end.
struct Appender {
    buffer: Index<Buffer>,
    bytes: Vec<u8>,
}

impl Appender {
    /// Appends the values as a new buffer view (4-byte aligned) and returns its index.
    fn push(
        &mut self,
        values: &[f32],
        target: Option<u32>,
        root: &mut Root,
    ) -> Result<Index<BufferView>, Error> {
        let offset = self.bytes.len();
        self.bytes.reserve(values.len().saturating_mul(4));
        for value in values {
            self.bytes.extend_from_slice(&value.to_le_bytes());
        }
        let too_big = || Error::unsupported("the turned data does not fit in one buffer");
        let byte_offset = u64::try_from(offset).map_err(|_| too_big())?;
        let byte_length =
            u64::try_from(self.bytes.len().saturating_sub(offset)).map_err(|_| too_big())?;
        let index = Index::try_from(root.buffer_views.len())
            .map_err(|_| Error::unsupported("too many buffer views"))?;
        root.buffer_views.push(Ordered::new(BufferView {
            buffer: self.buffer,
            byte_offset: (byte_offset > 0).then_some(byte_offset),
            byte_length,
            target,
            ..BufferView::default()
        }));
        Ok(index)
    }
}

/// Per-component bounds of flat data with `width` components per element (NaNs skipped).
fn bounds(values: &[f32], width: usize) -> (Vec<Float>, Vec<Float>) {
    let mut lo = vec![f32::INFINITY; width];
    let mut hi = vec![f32::NEG_INFINITY; width];
    if width > 0 {
        for element in values.chunks_exact(width) {
            for ((l, h), &v) in lo.iter_mut().zip(hi.iter_mut()).zip(element) {
                if v < *l {
                    *l = v;
                }
                if v > *h {
                    *h = v;
                }
            }
        }
    }
    let finish = |v: Vec<f32>| {
        v.into_iter()
            .map(|x| Float::from(if x.is_finite() { x } else { 0.0 }))
            .collect()
    };
    (finish(lo), finish(hi))
}

/// State of one pass: the input, copies of the buffers flipped in place, the new data.
struct Work<'a> {
    source: &'a Document,
    aliased: HashSet<u32>,
    buffers: HashMap<u32, Vec<u8>>,
    appender: Appender,
    diagnostics: &'a mut Diagnostics,
}

impl Work<'_> {
    fn invalid(&self, pointer: String, message: String) -> Error {
        Error::invalid(self.source.path(), Location::JsonPointer(pointer), message)
    }

    fn original(&self, index: Index<Accessor>) -> Result<&Ordered<Accessor>, Error> {
        self.source.root.get(index).ok_or_else(|| {
            self.invalid(
                format!("/accessors/{index}"),
                format!(
                    "accessor {index} does not exist ({} accessors)",
                    self.source.root.accessors.len()
                ),
            )
        })
    }

    /// The one turn all turning uses agree on, with the accessor's type checked against it.
    fn agreed_turn(&self, index: Index<Accessor>, turning: &[&Use]) -> Result<Turn, Error> {
        let accessor = self.original(index)?;
        let mut agreed: Option<(Turn, &Use)> = None;
        for &u in turning {
            let Some(turn) = u.turn else { continue };
            if ElementType::parse(&accessor.element_type) != Some(turn.element()) {
                return Err(self.invalid(
                    u.site.pointer(),
                    format!(
                        "accessor {index} is {}: expected {} here",
                        accessor.element_type,
                        turn.element()
                    ),
                ));
            }
            match agreed {
                Some((t, first)) if t != turn => {
                    return Err(self.invalid(
                        u.site.pointer(),
                        format!(
                            "accessor {index} is used as {} data here and as {} data at {}: expected one kind",
                            turn.element(),
                            t.element(),
                            first.site.pointer()
                        ),
                    ))
                }
                Some(_) => {}
                None => agreed = Some((turn, u)),
            }
        }
        agreed.map(|(t, _)| t).ok_or_else(|| {
            self.invalid(
                format!("/accessors/{index}"),
                format!("accessor {index} has no use that turns"),
            )
        })
    }

    /// Why the accessor cannot be flipped in place, `None` when it can.
    fn why_not_in_place(&self, index: Index<Accessor>, accessor: &Accessor) -> Option<String> {
        if accessor.sparse.is_some() {
            return Some("it is sparse".to_owned());
        }
        let Some(view_index) = accessor.buffer_view else {
            return Some("it has no buffer view".to_owned());
        };
        if accessor.component_type != FLOAT {
            let name = ComponentType::from_code(accessor.component_type)
                .map_or_else(|| accessor.component_type.to_string(), |c| c.to_string());
            return Some(format!("its components are {name}, not FLOAT"));
        }
        if accessor.normalized == Some(true) {
            return Some("it is marked normalized".to_owned());
        }
        if self.aliased.contains(&index.get()) {
            return Some("its bytes are also read by another accessor or buffer view".to_owned());
        }
        let view = self.source.root.get(view_index)?;
        if view.other.contains_key("extensions") {
            return Some("its buffer view has extensions".to_owned());
        }
        let data_uri_in_glb = self.source.container() == Container::Glb
            && self.source.buffer_source(view.buffer) == Some(&Source::DataUri);
        if data_uri_in_glb {
            return Some("its buffer is a data: URI inside a GLB file".to_owned());
        }
        None
    }

    /// Flips the sign bits of the turned components in a copy of the accessor's buffer.
    fn flip_in_place(&mut self, index: Index<Accessor>, turn: Turn) -> Result<(), Error> {
        let here = format!("/accessors/{index}");
        let accessor = self.original(index)?;
        let (count, offset, view_index) = (
            accessor.count,
            accessor.byte_offset.unwrap_or(0),
            accessor.buffer_view,
        );
        let view = view_index
            .and_then(|v| self.source.root.get(v))
            .ok_or_else(|| self.invalid(here.clone(), "its buffer view does not exist".into()))?;
        let mask = turn.mask();
        let size = 4 * u64::try_from(mask.len()).unwrap_or(16);
        let stride = view.byte_stride.unwrap_or(size);
        let start = view.byte_offset.unwrap_or(0).saturating_add(offset);
        let view_end = view
            .byte_offset
            .unwrap_or(0)
            .saturating_add(view.byte_length);
        let buffer = view.buffer;
        let last = match count {
            0 => return Ok(()),
            n => start
                .checked_add(stride.saturating_mul(n - 1))
                .and_then(|s| s.checked_add(size)),
        };
        if last.is_none_or(|end| end > view_end) {
            return Err(self.invalid(
                here,
                format!("accessor {index} reads past the end of its buffer view"),
            ));
        }
        if !self.buffers.contains_key(&buffer.get()) {
            let data = self.source.buffer(buffer).ok_or_else(|| {
                self.invalid(here.clone(), format!("buffer {buffer} does not exist"))
            })?;
            self.buffers.insert(buffer.get(), data.to_vec());
        }
        let bytes = self
            .buffers
            .get_mut(&buffer.get())
            .ok_or_else(|| Error::unsupported("buffer copy missing"))?;
        for e in 0..count {
            let element = start + stride * e;
            for (c, &flip) in (0u64..).zip(mask) {
                if !flip {
                    continue;
                }
                // The sign bit is the top bit of the last (little-endian) byte.
                let at = usize::try_from(element + 4 * c + 3).ok();
                match at.and_then(|at| bytes.get_mut(at)) {
                    Some(byte) => *byte ^= 0x80,
                    None => {
                        return Err(Error::invalid(
                            self.source.path(),
                            Location::JsonPointer(here),
                            format!("accessor {index} reads past the end of its buffer"),
                        ))
                    }
                }
            }
        }
        Ok(())
    }

    /// The accessor decoded, turned and written as new dense float data: its JSON, pointing at
    /// a new buffer view.
    fn rewritten(
        &mut self,
        index: Index<Accessor>,
        turn: Turn,
        root: &mut Root,
    ) -> Result<Ordered<Accessor>, Error> {
        let original = self.original(index)?.clone();
        let mut values = accessor::read_f32(self.source, index)?;
        turn::apply_mask_f32(&mut values, turn.mask());
        let target = original
            .buffer_view
            .and_then(|v| self.source.root.get(v))
            .and_then(|v| v.target);
        let view = self.appender.push(&values, target, root)?;
        let mut turned = original;
        turned.buffer_view = Some(view);
        turned.byte_offset = None;
        turned.component_type = FLOAT;
        turned.normalized = None;
        turned.sparse = None;
        if turned.min.is_some() || turned.max.is_some() {
            let (lo, hi) = bounds(&values, turn.mask().len());
            turned.min = Some(lo);
            turned.max = Some(hi);
        }
        Ok(turned)
    }

    /// Turns an accessor in place in `root` (same index), flipping or rewriting it.
    fn turn_one(
        &mut self,
        index: Index<Accessor>,
        turn: Turn,
        root: &mut Root,
    ) -> Result<(), Error> {
        let original = self.original(index)?.clone();
        let slot = index.as_usize();
        match self.why_not_in_place(index, &original) {
            None => {
                self.flip_in_place(index, turn)?;
                let Some(turned) = root.accessors.get_mut(slot) else {
                    return Ok(());
                };
                let turned = &mut **turned;
                if !turn::turn_bounds(&mut turned.min, &mut turned.max, turn.mask()) {
                    let mut values = accessor::read_f32(self.source, index)?;
                    turn::apply_mask_f32(&mut values, turn.mask());
                    let (lo, hi) = bounds(&values, turn.mask().len());
                    turned.min = Some(lo);
                    turned.max = Some(hi);
                }
            }
            Some(reason) => {
                let turned = self.rewritten(index, turn, root)?;
                if let Some(entry) = root.accessors.get_mut(slot) {
                    *entry = turned;
                }
                self.diagnostics.info(
                    "MIGRATE_ACCESSOR_REWRITTEN",
                    format!("/accessors/{index}"),
                    format!(
                        "accessor {index} could not be turned in place ({reason}): it was decoded, turned and written as dense FLOAT data in a new buffer view"
                    ),
                );
            }
        }
        Ok(())
    }

    /// Adds a turned copy of an accessor that some uses must keep unturned, and points the
    /// turning uses at it.
    fn turn_copy(
        &mut self,
        index: Index<Accessor>,
        turn: Turn,
        group: &[&Use],
        root: &mut Root,
    ) -> Result<(), Error> {
        let copy = self.rewritten(index, turn, root)?;
        let new_index = Index::try_from(root.accessors.len())
            .map_err(|_| Error::unsupported("too many accessors"))?;
        root.accessors.push(copy);
        let (turning, kept): (Vec<&&Use>, Vec<&&Use>) =
            group.iter().partition(|u| u.turn.is_some());
        for u in &turning {
            u.site.repoint(root, new_index);
        }
        let list = |uses: &[&&Use]| {
            let mut names: Vec<String> = uses.iter().take(3).map(|u| u.site.pointer()).collect();
            if uses.len() > 3 {
                names.push(format!("{} more", uses.len() - 3));
            }
            names.join(", ")
        };
        self.diagnostics.info(
            "MIGRATE_ACCESSOR_DUPLICATED",
            format!("/accessors/{index}"),
            format!(
                "accessor {index} is read where its values turn ({}) and where they must not ({}): the turned values went to a new accessor {new_index}",
                list(&turning),
                list(&kept)
            ),
        );
        Ok(())
    }
}

/// Turns every accessor a use needs turned (see the module docs), reading from `source` (the
/// input, never changed) and writing into `out` (its copy).
///
/// # Errors
/// [`Error::Invalid`] when an accessor's type does not fit a use that turns it (a `VEC4`
/// POSITION) or its data cannot be read; [`Error::Unsupported`] when the new data would not fit.
pub(super) fn turn_accessors(
    source: &Document,
    out: &mut Document,
    uses: &[Use],
    diagnostics: &mut Diagnostics,
) -> Result<(), Error> {
    let mut groups: BTreeMap<u32, Vec<&Use>> = BTreeMap::new();
    for u in uses {
        groups.entry(u.accessor.get()).or_default().push(u);
    }
    let buffer = Index::try_from(out.root.buffers.len())
        .map_err(|_| Error::unsupported("too many buffers"))?;
    let mut work = Work {
        source,
        aliased: aliased_accessors(&source.root),
        buffers: HashMap::new(),
        appender: Appender {
            buffer,
            bytes: Vec::new(),
        },
        diagnostics,
    };
    for (a, group) in &groups {
        let index = Index::new(*a);
        let turning: Vec<&Use> = group.iter().copied().filter(|u| u.turn.is_some()).collect();
        if turning.is_empty() {
            continue;
        }
        let turn = work.agreed_turn(index, &turning)?;
        if turning.len() < group.len() {
            work.turn_copy(index, turn, group, &mut out.root)?;
        } else {
            work.turn_one(index, turn, &mut out.root)?;
        }
    }
    let Work {
        buffers, appender, ..
    } = work;
    for (b, bytes) in buffers {
        out.set_buffer(Index::new(b), bytes)?;
    }
    if !appender.bytes.is_empty() {
        let added = out.push_buffer(appender.bytes)?;
        if added != appender.buffer {
            return Err(Error::unsupported(format!(
                "the turned data went to buffer {added}, but its buffer views name buffer {}",
                appender.buffer
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn print(owner: u32, start: u64, end: u64, stride: u64, size: u64) -> Footprint {
        Footprint {
            owner: Owner::Accessor(owner),
            buffer: 0,
            start,
            end,
            stride,
            size,
        }
    }

    #[test]
    fn interleaved_attributes_do_not_overlap() {
        // POSITION at 0 and NORMAL at 12 in a 24-byte stride, 10 vertices.
        let position = print(0, 0, 9 * 24 + 12, 24, 12);
        let normal = print(1, 12, 12 + 9 * 24 + 12, 24, 12);
        assert!(!overlaps(&position, &normal));
        // A VEC2 at 8 would share bytes 8..12 with POSITION.
        let bad = print(2, 8, 8 + 9 * 24 + 8, 24, 8);
        assert!(overlaps(&position, &bad));
        // Packed accessors one after the other do not overlap; the same bytes twice do.
        let a = print(3, 0, 120, 12, 12);
        let b = print(4, 120, 240, 12, 12);
        assert!(!overlaps(&a, &b));
        assert!(overlaps(&a, &print(5, 0, 120, 12, 12)));
    }

    #[test]
    fn bounds_per_component() {
        let (lo, hi) = bounds(&[1.0, -2.0, 3.0, -4.0, 5.0, 0.5], 3);
        let get = |v: Vec<Float>| v.iter().map(Float::get).collect::<Vec<_>>();
        assert_eq!(get(lo), vec![-4.0, -2.0, 0.5]);
        assert_eq!(get(hi), vec![1.0, 5.0, 3.0]);
    }
}
