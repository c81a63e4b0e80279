//! [`Ordered<T>`]: a JSON object that writes its keys back in the order it read them.
//!
//! # Overview
//!
//! serde's derive writes a struct's fields in declaration order, and flattened maps after
//! them. To give a lossless round trip, `Ordered<T>` records the keys as they are read (a
//! [`MapAccess`] wrapper notes each key before handing it to `T`'s own deserializer, so error
//! paths stay exact) and, when writing, emits `T`'s entries in the recorded order, keys the
//! input did not have (added by a program) last in `T`'s order.
//!
//! Writing does not go through `serde_json::Value`: one pass over `T` lists the keys it
//! emits, then one pass per key forwards just that entry (serialized straight into the real
//! output). Values are therefore serialized once, and nested `Ordered` objects cost no copies;
//! the passes only count entries. When the recorded order already matches `T`'s, `T` is
//! written directly.

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{MapAccessDeserializer, StringDeserializer};
use serde::de::{DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, Visitor};
use serde::ser::{self, Impossible, SerializeMap, SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

/// A JSON object of type `T` that remembers the order of its keys.
///
/// It dereferences to `T`, so `root.nodes[0].name` reads as usual.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ordered<T> {
    value: T,
    keys: Vec<String>,
}

impl<T> Ordered<T> {
    /// Wraps a value that was not read from JSON (its keys come out in `T`'s field order).
    pub fn new(value: T) -> Self {
        Ordered {
            value,
            keys: Vec::new(),
        }
    }

    /// The value, dropping the recorded key order.
    pub fn into_inner(self) -> T {
        self.value
    }

    /// The keys in the order they were read (empty for a value made in code).
    pub fn keys(&self) -> &[String] {
        &self.keys
    }
}

impl<T> From<T> for Ordered<T> {
    fn from(value: T) -> Self {
        Ordered::new(value)
    }
}

impl<T> std::ops::Deref for Ordered<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> std::ops::DerefMut for Ordered<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(OrderedVisitor(PhantomData))
    }
}

struct OrderedVisitor<T>(PhantomData<fn() -> T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for OrderedVisitor<T> {
    type Value = Ordered<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Ordered<T>, A::Error> {
        let mut keys = Vec::new();
        let recorder = KeyRecorder {
            inner: map,
            keys: &mut keys,
        };
        let value = T::deserialize(MapAccessDeserializer::new(recorder))?;
        Ok(Ordered { value, keys })
    }
}

/// A [`MapAccess`] that records each key before handing it on.
struct KeyRecorder<'k, A> {
    inner: A,
    keys: &'k mut Vec<String>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for KeyRecorder<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        match self.inner.next_key::<String>()? {
            Some(key) => {
                self.keys.push(key.clone());
                let key: StringDeserializer<A::Error> = key.into_deserializer();
                seed.deserialize(key).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.inner.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

impl<T: Serialize> Serialize for Ordered<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.keys.is_empty() {
            return self.value.serialize(serializer);
        }
        let mut emitted = Vec::new();
        let listed = self.value.serialize(Walk::<S::SerializeMap> {
            mode: Mode::List(&mut emitted),
            at: 0,
            pending: false,
        });
        if listed.is_err() {
            // Not an object after all: nothing to order.
            return self.value.serialize(serializer);
        }
        let order = output_order(&emitted, &self.keys);
        if order.iter().enumerate().all(|(i, &p)| i == p) {
            return self.value.serialize(serializer);
        }
        let mut map = serializer.serialize_map(Some(order.len()))?;
        for position in order {
            self.value.serialize(Walk {
                mode: Mode::Pick {
                    position,
                    map: &mut map,
                },
                at: 0,
                pending: false,
            })?;
        }
        map.end()
    }
}

/// Positions into `emitted`: first the keys of `recorded` (in that order, each matched to its
/// first unused occurrence), then the rest in emitted order.
fn output_order(emitted: &[String], recorded: &[String]) -> Vec<usize> {
    let mut used = vec![false; emitted.len()];
    let mut order = Vec::with_capacity(emitted.len());
    for key in recorded {
        let found = emitted
            .iter()
            .enumerate()
            .position(|(i, k)| k == key && !used.get(i).copied().unwrap_or(true));
        if let Some(i) = found {
            if let Some(u) = used.get_mut(i) {
                *u = true;
            }
            order.push(i);
        }
    }
    order.extend((0..emitted.len()).filter(|&i| !used.get(i).copied().unwrap_or(true)));
    order
}

/// What a [`Walk`] does with the entries of the object it is given.
enum Mode<'a, M> {
    /// Record every key.
    List(&'a mut Vec<String>),
    /// Forward only the entry at `position` into `map`.
    Pick { position: usize, map: &'a mut M },
}

/// A serializer that accepts one object (a struct or a map) and lists or picks its entries.
struct Walk<'a, M> {
    mode: Mode<'a, M>,
    /// Index of the next entry.
    at: usize,
    /// Whether the key just forwarded awaits its value.
    pending: bool,
}

const NOT_AN_OBJECT: &str = "Ordered<T> needs T to serialize as a JSON object";

impl<M: SerializeMap> Walk<'_, M> {
    fn key<K: ?Sized + Serialize>(&mut self, key: &K) -> Result<(), M::Error> {
        match &mut self.mode {
            Mode::List(keys) => keys.push(key.serialize(KeyString::<M::Error>(PhantomData))?),
            Mode::Pick { position, map } => {
                if *position == self.at {
                    map.serialize_key(key)?;
                    self.pending = true;
                }
            }
        }
        self.at += 1;
        Ok(())
    }

    fn value<V: ?Sized + Serialize>(&mut self, value: &V) -> Result<(), M::Error> {
        if self.pending {
            self.pending = false;
            if let Mode::Pick { map, .. } = &mut self.mode {
                map.serialize_value(value)?;
            }
        }
        Ok(())
    }
}

impl<M: SerializeMap> SerializeMap for Walk<'_, M> {
    type Ok = ();
    type Error = M::Error;

    fn serialize_key<K: ?Sized + Serialize>(&mut self, key: &K) -> Result<(), M::Error> {
        self.key(key)
    }

    fn serialize_value<V: ?Sized + Serialize>(&mut self, value: &V) -> Result<(), M::Error> {
        self.value(value)
    }

    fn end(self) -> Result<(), M::Error> {
        Ok(())
    }
}

impl<M: SerializeMap> SerializeStruct for Walk<'_, M> {
    type Ok = ();
    type Error = M::Error;

    fn serialize_field<V: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &V,
    ) -> Result<(), M::Error> {
        self.key(key)?;
        self.value(value)
    }

    fn end(self) -> Result<(), M::Error> {
        Ok(())
    }
}

/// Serializer methods that refuse anything but an object.
macro_rules! refuse {
    ($($method:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {$(
        fn $method(self, $($arg: $ty),*) -> Result<$ret, Self::Error> {
            let _ = ($($arg,)*);
            Err(ser::Error::custom(NOT_AN_OBJECT))
        }
    )*};
}

/// Generic serializer methods that refuse anything but an object.
macro_rules! refuse_generic {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method<V: ?Sized + Serialize>(self, $($arg: $ty,)* value: &V) -> Result<Self::Ok, Self::Error> {
            let _ = ($($arg,)* value);
            Err(ser::Error::custom(NOT_AN_OBJECT))
        }
    )*};
}

impl<'a, M: SerializeMap> Serializer for Walk<'a, M> {
    type Ok = ();
    type Error = M::Error;
    type SerializeSeq = Impossible<(), M::Error>;
    type SerializeTuple = Impossible<(), M::Error>;
    type SerializeTupleStruct = Impossible<(), M::Error>;
    type SerializeTupleVariant = Impossible<(), M::Error>;
    type SerializeMap = Walk<'a, M>;
    type SerializeStruct = Walk<'a, M>;
    type SerializeStructVariant = Impossible<(), M::Error>;

    fn serialize_map(self, _len: Option<usize>) -> Result<Self, M::Error> {
        Ok(self)
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self, M::Error> {
        Ok(self)
    }

    refuse! {
        serialize_bool(v: bool) -> ();
        serialize_i8(v: i8) -> ();
        serialize_i16(v: i16) -> ();
        serialize_i32(v: i32) -> ();
        serialize_i64(v: i64) -> ();
        serialize_u8(v: u8) -> ();
        serialize_u16(v: u16) -> ();
        serialize_u32(v: u32) -> ();
        serialize_u64(v: u64) -> ();
        serialize_f32(v: f32) -> ();
        serialize_f64(v: f64) -> ();
        serialize_char(v: char) -> ();
        serialize_str(v: &str) -> ();
        serialize_bytes(v: &[u8]) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(name: &'static str) -> ();
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str) -> ();
        serialize_seq(len: Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(len: usize) -> Self::SerializeTuple;
        serialize_tuple_struct(name: &'static str, len: usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(name: &'static str, index: u32, variant: &'static str, len: usize) -> Self::SerializeTupleVariant;
        serialize_struct_variant(name: &'static str, index: u32, variant: &'static str, len: usize) -> Self::SerializeStructVariant;
    }

    refuse_generic! {
        serialize_some();
        serialize_newtype_struct(name: &'static str);
        serialize_newtype_variant(name: &'static str, index: u32, variant: &'static str);
    }
}

/// Serializes a map key to its string.
struct KeyString<E>(PhantomData<fn() -> E>);

macro_rules! key_to_string {
    ($($method:ident($ty:ty);)*) => {$(
        fn $method(self, v: $ty) -> Result<String, E> {
            Ok(v.to_string())
        }
    )*};
}

const NOT_A_KEY: &str = "a JSON object key must be a string";

impl<E: ser::Error> Serializer for KeyString<E> {
    type Ok = String;
    type Error = E;
    type SerializeSeq = Impossible<String, E>;
    type SerializeTuple = Impossible<String, E>;
    type SerializeTupleStruct = Impossible<String, E>;
    type SerializeTupleVariant = Impossible<String, E>;
    type SerializeMap = Impossible<String, E>;
    type SerializeStruct = Impossible<String, E>;
    type SerializeStructVariant = Impossible<String, E>;

    key_to_string! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_f32(f32);
        serialize_f64(f64);
        serialize_char(char);
        serialize_str(&str);
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<String, E> {
        Ok(variant.to_owned())
    }

    fn serialize_newtype_struct<V: ?Sized + Serialize>(
        self,
        _name: &'static str,
        value: &V,
    ) -> Result<String, E> {
        value.serialize(self)
    }

    fn serialize_bytes(self, _v: &[u8]) -> Result<String, E> {
        Err(ser::Error::custom(NOT_A_KEY))
    }
    fn serialize_none(self) -> Result<String, E> {
        Err(ser::Error::custom(NOT_A_KEY))
    }
    fn serialize_some<V: ?Sized + Serialize>(self, _value: &V) -> Result<String, E> {
        Err(ser::Error::custom(NOT_A_KEY))
    }
    fn serialize_unit(self) -> Result<String, E> {
        Err(ser::Error::custom(NOT_A_KEY))
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<String, E> {
        Err(ser::Error::custom(NOT_A_KEY))
    }
    fn serialize_newtype_variant<V: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &V,
    ) -> Result<String, E> {
        Err(ser::Error::custom(NOT_A_KEY))
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, E> {
        Err(ser::Error::custom(NOT_A_KEY))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, E> {
        Err(ser::Error::custom(NOT_A_KEY))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, E> {
        Err(ser::Error::custom(NOT_A_KEY))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, E> {
        Err(ser::Error::custom(NOT_A_KEY))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, E> {
        Err(ser::Error::custom(NOT_A_KEY))
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, E> {
        Err(ser::Error::custom(NOT_A_KEY))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, E> {
        Err(ser::Error::custom(NOT_A_KEY))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, Value};

    #[derive(Debug, Default, Serialize, Deserialize)]
    struct Thing {
        a: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        b: Option<Box<Ordered<Thing>>>,
        #[serde(flatten)]
        other: Map<String, Value>,
    }

    #[test]
    fn writes_keys_in_read_order() {
        let text = r#"{"x":[1,{"q":1,"p":2}],"b":{"z":null,"a":1},"a":2,"y":1.0}"#;
        let thing: Ordered<Thing> = serde_json::from_str(text).unwrap();
        assert_eq!(thing.keys(), ["x", "b", "a", "y"]);
        assert_eq!(serde_json::to_string(&thing).unwrap(), text);
        // Through serde_json::Value too (a different serializer).
        let value = serde_json::to_value(&thing).unwrap();
        assert_eq!(serde_json::to_string(&value).unwrap(), text);
    }

    #[test]
    fn new_keys_come_last() {
        let mut thing: Ordered<Thing> = serde_json::from_str(r#"{"z":1,"a":2}"#).unwrap();
        thing.b = Some(Box::new(Ordered::new(Thing::default())));
        assert_eq!(
            serde_json::to_string(&thing).unwrap(),
            r#"{"z":1,"a":2,"b":{"a":0}}"#
        );
    }

    #[test]
    fn order_positions() {
        let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            output_order(&s(&["a", "b", "c"]), &s(&["c", "x", "a"])),
            [2, 0, 1]
        );
        assert_eq!(output_order(&s(&["a", "a"]), &s(&["a"])), [0, 1]);
    }
}
