//! [`View`]: a JSON value with its JSON pointer, for reading extension objects (VRM,
//! KHR_virtual_transform, …) with errors that say where and what was expected.

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{Error, Location};
use crate::math::num::to_f32;

/// A JSON value, the pointer it was found at and the file it came from.
#[derive(Debug, Clone)]
pub struct View<'a> {
    value: &'a Value,
    pointer: String,
    file: &'a Path,
}

impl<'a> View<'a> {
    /// The view of `value` at `pointer` in `file`.
    pub fn new(value: &'a Value, pointer: impl Into<String>, file: &'a Path) -> Self {
        View {
            value,
            pointer: pointer.into(),
            file,
        }
    }

    /// The JSON pointer of this value.
    pub fn pointer(&self) -> &str {
        &self.pointer
    }

    /// The value itself.
    pub fn value(&self) -> &'a Value {
        self.value
    }

    /// An error at this value.
    pub fn error(&self, message: impl Into<String>) -> Error {
        Error::invalid(
            self.file,
            Location::JsonPointer(self.pointer.clone()),
            message,
        )
    }

    /// The member `key` of an object (`None` when absent or when this is not an object).
    pub fn get(&self, key: &str) -> Option<View<'a>> {
        let value = self.value.as_object()?.get(key)?;
        Some(self.child(value, key))
    }

    fn child(&self, value: &'a Value, token: &str) -> View<'a> {
        View {
            value,
            pointer: format!("{}{}", self.pointer, super::json::pointer([token])),
            file: self.file,
        }
    }

    /// The members of an object, in order.
    ///
    /// # Errors
    /// This is not an object.
    pub fn entries(&self) -> Result<Vec<(&'a str, View<'a>)>, Error> {
        let map: &'a Map<String, Value> = self
            .value
            .as_object()
            .ok_or_else(|| self.error(format!("expected an object, found {}", kind(self.value))))?;
        Ok(map
            .iter()
            .map(|(k, v)| (k.as_str(), self.child(v, k)))
            .collect())
    }

    /// The items of an array.
    ///
    /// # Errors
    /// This is not an array.
    pub fn items(&self) -> Result<Vec<View<'a>>, Error> {
        let items = self
            .value
            .as_array()
            .ok_or_else(|| self.error(format!("expected an array, found {}", kind(self.value))))?;
        Ok(items
            .iter()
            .enumerate()
            .map(|(i, v)| self.child(v, &i.to_string()))
            .collect())
    }

    /// A string.
    ///
    /// # Errors
    /// This is not a string.
    pub fn str(&self) -> Result<&'a str, Error> {
        self.value
            .as_str()
            .ok_or_else(|| self.error(format!("expected a string, found {}", kind(self.value))))
    }

    /// A finite number as `f32`.
    ///
    /// # Errors
    /// This is not a number.
    pub fn f32(&self) -> Result<f32, Error> {
        match self.value.as_f64() {
            Some(v) if v.is_finite() => Ok(to_f32(v)),
            _ => Err(self.error(format!("expected a number, found {}", kind(self.value)))),
        }
    }

    /// A node index below `node_count`.
    ///
    /// # Errors
    /// Not a non-negative integer, or out of range.
    pub fn node(&self, node_count: usize) -> Result<usize, Error> {
        let index = self.value.as_u64().ok_or_else(|| {
            self.error(format!(
                "expected a node index (a non-negative integer), found {}",
                self.value
            ))
        })?;
        match usize::try_from(index) {
            Ok(i) if i < node_count => Ok(i),
            _ => Err(self.error(format!(
                "node index {index} is out of range: the file has {node_count} nodes"
            ))),
        }
    }

    /// `[x, y, z]`.
    ///
    /// # Errors
    /// Not an array of three numbers.
    pub fn vec3_array(&self) -> Result<[f32; 3], Error> {
        let items = self.items()?;
        match items.as_slice() {
            [x, y, z] => Ok([x.f32()?, y.f32()?, z.f32()?]),
            _ => Err(self.error(format!(
                "expected an array of 3 numbers, found {} items",
                items.len()
            ))),
        }
    }

    /// `{"x": .., "y": .., "z": ..}` (VRM 0.x vectors); missing components are 0.
    ///
    /// # Errors
    /// Not an object, or a component that is not a number.
    pub fn vec3_object(&self) -> Result<[f32; 3], Error> {
        self.entries()?;
        let c = |key| self.get(key).map_or(Ok(0.0), |v| v.f32());
        Ok([c("x")?, c("y")?, c("z")?])
    }
}

/// "a string", "an object", … for messages.
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_and_errors() {
        let value = json!({"humanoid": {"humanBones": {"a/b": {"node": 7}}}});
        let root = View::new(&value, "/extensions/VRMC_vrm", Path::new("m.vrm"));
        let bones = root.get("humanoid").unwrap().get("humanBones").unwrap();
        let (name, bone) = bones.entries().unwrap().into_iter().next().unwrap();
        assert_eq!(name, "a/b");
        let node = bone.get("node").unwrap();
        assert_eq!(
            node.pointer(),
            "/extensions/VRMC_vrm/humanoid/humanBones/a~1b/node"
        );
        assert_eq!(node.node(8).unwrap(), 7);
        let err = node.node(3).unwrap_err().to_string();
        assert!(err.starts_with("m.vrm: JSON /extensions/VRMC_vrm/humanoid/humanBones/a~1b/node: node index 7 is out of range"), "{err}");
        assert!(bones
            .items()
            .unwrap_err()
            .to_string()
            .contains("expected an array, found an object"));
    }

    #[test]
    fn vectors() {
        let value = json!({"a": [1, 2, 3], "o": {"x": 1, "z": -2}, "bad": [1, 2]});
        let v = View::new(&value, "", Path::new("f"));
        assert_eq!(v.get("a").unwrap().vec3_array().unwrap(), [1.0, 2.0, 3.0]);
        assert_eq!(v.get("o").unwrap().vec3_object().unwrap(), [1.0, 0.0, -2.0]);
        assert!(v.get("bad").unwrap().vec3_array().is_err());
    }
}
