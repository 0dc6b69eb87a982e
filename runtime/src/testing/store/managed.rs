//! Field ownership, as the apiserver's server-side apply keeps it in
//! `metadata.managedFields`: every manager owns the fields it applied (operation `Apply`)
//! or changed (`Update`). An apply merges into the live object by the schema's list and
//! map types (a `map` list by its keys, a `set` by value, atomic lists and maps whole),
//! refuses (409) to change a field another manager owns unless forced, and removes the
//! fields its manager applied before and no longer does, when no one else owns them.
//!
//! Fields are the apiserver's FieldsV1 paths: `f:<name>` a field, `k:<keys>` an item of a
//! map list, `v:<value>` an item of a set, `.` the item (or map) itself.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

/// A path to one owned field, each element in its FieldsV1 spelling.
type Path = Vec<String>;
type FieldSet = BTreeSet<Path>;

const ITSELF: &str = ".";

/// Fields no manager owns: identity and bookkeeping the apiserver sets itself (spelled
/// as field-set paths, so that each path is compared without building one).
const UNOWNED: &[&[&str]] = &[
    &["f:apiVersion"],
    &["f:kind"],
    &["f:metadata", "f:name"],
    &["f:metadata", "f:namespace"],
    &["f:metadata", "f:uid"],
    &["f:metadata", "f:resourceVersion"],
    &["f:metadata", "f:generation"],
    &["f:metadata", "f:creationTimestamp"],
    &["f:metadata", "f:deletionTimestamp"],
    &["f:metadata", "f:deletionGracePeriodSeconds"],
    &["f:metadata", "f:managedFields"],
    &["f:metadata", "f:selfLink"],
];

/// The part of an object a write addresses, which its entries are recorded for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Subresource {
    Main,
    Status,
}

/// Who writes, through which part of the object, at which API version and time: what
/// an entry records.
pub(crate) struct Stamp<'a> {
    pub manager: &'a str,
    pub subresource: Subresource,
    pub api_version: &'a str,
    pub time: Value,
}

/// Why an apply was refused: the fields other managers own, by manager.
pub(crate) struct Conflicts(Vec<(String, String)>);

impl Conflicts {
    /// One cause each, as the apiserver lists them: `FieldManagerConflict` at the field,
    /// `conflict with "a"`.
    pub fn causes(&self) -> Vec<super::super::status::Cause> {
        self.0
            .iter()
            .map(|(manager, field)| super::super::status::Cause {
                reason: "FieldManagerConflict",
                message: format!("conflict with {manager:?}"),
                field: field.clone(),
            })
            .collect()
    }

    /// The apiserver's message: `Apply failed with 1 conflict: conflict with "a": .spec.x`.
    pub fn message(&self) -> String {
        let n = self.0.len();
        let each: Vec<String> = self
            .0
            .iter()
            .map(|(manager, field)| format!("conflict with {manager:?}: {field}"))
            .collect();
        let plural = if n == 1 { "" } else { "s" };
        format!(
            "Apply failed with {n} conflict{plural}: {}",
            each.join("\n")
        )
    }
}

/// One `managedFields` entry, with its fields read.
struct Entry {
    manager: String,
    operation: String,
    subresource: Option<String>,
    api_version: String,
    time: Value,
    fields: FieldSet,
}

impl Entry {
    fn same_owner(&self, manager: &str, operation: &str, subresource: Subresource) -> bool {
        self.manager == manager
            && self.operation == operation
            && self.subresource.as_deref() == subresource.name()
    }
}

impl Subresource {
    fn name(self) -> Option<&'static str> {
        match self {
            Subresource::Main => None,
            Subresource::Status => Some("status"),
        }
    }
}

/// The entries recorded on `object`.
fn entries(object: &Value) -> Vec<Entry> {
    let Some(list) = object["metadata"]["managedFields"].as_array() else {
        return Vec::new();
    };
    list.iter()
        .map(|e| {
            let mut fields = FieldSet::new();
            decode(&e["fieldsV1"], &mut Vec::new(), &mut fields);
            Entry {
                manager: e["manager"].as_str().unwrap_or_default().to_owned(),
                operation: e["operation"].as_str().unwrap_or_default().to_owned(),
                subresource: e["subresource"].as_str().map(str::to_owned),
                api_version: e["apiVersion"].as_str().unwrap_or_default().to_owned(),
                time: e["time"].clone(),
                fields,
            }
        })
        .collect()
}

fn store_entries(object: &mut Value, entries: Vec<Entry>) {
    let list: Vec<Value> = entries
        .into_iter()
        .filter(|e| !e.fields.is_empty())
        .map(|e| {
            let mut entry = json!({
                "manager": e.manager,
                "operation": e.operation,
                "apiVersion": e.api_version,
                "time": e.time,
                "fieldsType": "FieldsV1",
                "fieldsV1": encode(&e.fields),
            });
            if let Some(sub) = e.subresource {
                entry["subresource"] = json!(sub);
            }
            entry
        })
        .collect();
    let Some(meta) = object["metadata"].as_object_mut() else {
        return;
    };
    if list.is_empty() {
        meta.remove("managedFields");
    } else {
        meta.insert("managedFields".into(), Value::Array(list));
    }
}

/// Server-side apply of `applied` by `manager` onto `live` (`None` when the apply
/// creates the object): the merged object, with its managedFields, or the conflicts.
pub(crate) fn apply(
    live: Option<&Value>,
    applied: &Value,
    schema: Option<&Value>,
    force: bool,
    stamp: Stamp<'_>,
) -> Result<Value, Conflicts> {
    let empty = json!({"metadata": {}});
    let live = live.unwrap_or(&empty);
    let mut owners = entries(live);
    let applied_fields = fields(applied, schema);
    let mine = |e: &Entry| e.same_owner(stamp.manager, APPLY, stamp.subresource);

    let mut conflicts = Vec::new();
    for entry in owners.iter_mut().filter(|e| !mine(e)) {
        let taken: Vec<Path> = entry
            .fields
            .intersection(&applied_fields)
            .filter(|p| p.last().is_none_or(|e| e != ITSELF))
            .filter(|p| at(live, p, schema) != at(applied, p, schema))
            .cloned()
            .collect();
        for path in taken {
            if force {
                entry.fields.remove(&path);
            } else {
                conflicts.push((entry.manager.clone(), dotted(&path)));
            }
        }
    }
    if !conflicts.is_empty() {
        return Err(Conflicts(conflicts));
    }

    let mut merged = merge(live, applied, schema);
    let before = owners
        .iter()
        .find(|e| mine(e))
        .map(|e| e.fields.clone())
        .unwrap_or_default();
    let others: FieldSet = owners
        .iter()
        .filter(|e| !mine(e))
        .flat_map(|e| e.fields.iter().cloned())
        .collect();
    let dropped: Vec<&Path> = before
        .iter()
        .filter(|p| !applied_fields.contains(*p) && !others.contains(*p))
        .collect();
    for path in dropped.into_iter().rev() {
        remove(&mut merged, path, schema);
    }

    // An apply that changes nothing keeps its entry's time (and the object unchanged).
    let entry = entry(&mut owners, &stamp, APPLY);
    if entry.fields != applied_fields {
        entry.time = stamp.time.clone();
    }
    entry.fields = applied_fields;
    store_entries(&mut merged, owners);
    Ok(merged)
}

const APPLY: &str = "Apply";
const UPDATE: &str = "Update";

/// The entry of the stamp's manager and `operation`, made (empty) where there is none;
/// it records the stamp's API version.
fn entry<'e>(owners: &'e mut Vec<Entry>, stamp: &Stamp<'_>, operation: &str) -> &'e mut Entry {
    let at = match owners
        .iter()
        .position(|e| e.same_owner(stamp.manager, operation, stamp.subresource))
    {
        Some(at) => at,
        None => {
            owners.push(Entry {
                manager: stamp.manager.to_owned(),
                operation: operation.to_owned(),
                subresource: stamp.subresource.name().map(str::to_owned),
                api_version: String::new(),
                time: stamp.time.clone(),
                fields: FieldSet::new(),
            });
            owners.len() - 1
        }
    };
    let entry = &mut owners[at];
    entry.api_version = stamp.api_version.to_owned();
    entry
}

/// Records an update (create, replace, patch) by `manager`: it owns the fields it
/// changed, which no other manager owns any more; fields it removed are no one's.
pub(crate) fn record_update(
    old: Option<&Value>,
    new: &mut Value,
    schema: Option<&Value>,
    stamp: Stamp<'_>,
) {
    let empty = json!({"metadata": {}});
    let old = old.unwrap_or(&empty);
    let mut owners = entries(old);
    let before = fields(old, schema);
    let after = fields(new, schema);
    // A leaf is changed when its value is; an item (`.`) only when it is new.
    let changed: FieldSet = after
        .iter()
        .filter(|p| {
            !before.contains(*p)
                || (p.last().is_none_or(|e| e != ITSELF)
                    && at(old, p, schema) != at(new, p, schema))
        })
        .cloned()
        .collect();
    let gone: FieldSet = before.difference(&after).cloned().collect();
    if changed.is_empty() && gone.is_empty() {
        store_entries(new, owners);
        return;
    }
    for entry in &mut owners {
        entry
            .fields
            .retain(|p| !changed.contains(p) && !gone.contains(p));
    }
    if !changed.is_empty() {
        let entry = entry(&mut owners, &stamp, UPDATE);
        entry.fields.extend(changed);
        entry.time = stamp.time.clone();
    }
    store_entries(new, owners);
}

/// The `managedFields` an object must keep across a write that sends its own (or none):
/// the server's, never the body's.
pub(crate) fn keep(from: Option<&Value>, into: &mut Value) {
    let kept = from
        .and_then(|o| o["metadata"].get("managedFields"))
        .filter(|list| !list.is_null())
        .cloned();
    if let Some(meta) = into["metadata"].as_object_mut() {
        match kept {
            Some(list) => meta.insert("managedFields".into(), list),
            None => meta.remove("managedFields"),
        };
    }
}

// ---------------------------------------------------------------- schemas

fn list_type(schema: Option<&Value>) -> &str {
    schema
        .and_then(|s| s["x-kubernetes-list-type"].as_str())
        .unwrap_or("atomic")
}

fn map_keys(schema: Option<&Value>) -> Vec<&str> {
    schema
        .and_then(|s| s["x-kubernetes-list-map-keys"].as_array())
        .map(|keys| keys.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn atomic_map(schema: Option<&Value>) -> bool {
    schema.is_some_and(|s| s["x-kubernetes-map-type"] == "atomic")
}

fn property<'a>(schema: Option<&'a Value>, name: &str) -> Option<&'a Value> {
    let schema = schema?;
    schema["properties"]
        .get(name)
        .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object()))
}

fn items(schema: Option<&Value>) -> Option<&Value> {
    schema?.get("items")
}

/// `k:{"name":"a"}`: the keys of a map list's item, as FieldsV1 names it.
fn item_key(item: &Value, keys: &[&str]) -> String {
    let mut key = Map::new();
    for k in keys {
        if let Some(v) = item.get(*k) {
            key.insert((*k).to_owned(), v.clone());
        }
    }
    format!("k:{}", Value::Object(key))
}

fn item_element(item: &Value, schema: Option<&Value>) -> String {
    match list_type(schema) {
        "map" => item_key(item, &map_keys(schema)),
        _ => format!("v:{item}"),
    }
}

// ---------------------------------------------------------------- field sets

/// Every field `object` sets, but those the apiserver owns itself.
fn fields(object: &Value, schema: Option<&Value>) -> FieldSet {
    let mut out = FieldSet::new();
    collect(object, schema, &mut Vec::new(), &mut out);
    out.retain(|p| {
        !UNOWNED
            .iter()
            .any(|u| p.len() >= u.len() && p.iter().zip(u.iter()).all(|(a, b)| a.as_str() == *b))
    });
    out
}

/// As structured-merge-diff reads a value: a granular map or a map or set list owns its
/// members (an empty one owns nothing), anything else is one field.
fn collect(value: &Value, schema: Option<&Value>, path: &mut Path, out: &mut FieldSet) {
    match value {
        Value::Object(map) if !atomic_map(schema) => {
            for (name, child) in map {
                path.push(format!("f:{name}"));
                collect(child, property(schema, name), path, out);
                path.pop();
            }
        }
        Value::Array(list) if list_type(schema) != "atomic" => {
            let item_schema = items(schema);
            for item in list {
                path.push(item_element(item, schema));
                if list_type(schema) == "map" {
                    path.push(ITSELF.to_owned());
                    out.insert(path.clone());
                    path.pop();
                    collect(item, item_schema, path, out);
                } else {
                    out.insert(path.clone());
                }
                path.pop();
            }
        }
        _ => {
            out.insert(path.clone());
        }
    }
}

/// The value at `path` (a leaf, or a list item for `.` and set items).
fn at<'v>(value: &'v Value, path: &[String], schema: Option<&Value>) -> Option<&'v Value> {
    let Some((first, rest)) = path.split_first() else {
        return Some(value);
    };
    if first == ITSELF {
        return Some(value);
    }
    if let Some(name) = first.strip_prefix("f:") {
        return at(value.get(name)?, rest, property(schema, name));
    }
    let item = value
        .as_array()?
        .iter()
        .find(|item| item_element(item, schema) == *first)?;
    at(item, rest, items(schema))
}

/// Takes the field at `path` out of `value`: a map's key, or a list's item.
fn remove(value: &mut Value, path: &[String], schema: Option<&Value>) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    if let Some(name) = first.strip_prefix("f:") {
        let Some(map) = value.as_object_mut() else {
            return;
        };
        if rest.is_empty() {
            map.remove(name);
        } else if let Some(child) = map.get_mut(name) {
            remove(child, rest, property(schema, name));
        }
        return;
    }
    let Some(list) = value.as_array_mut() else {
        return;
    };
    let Some(index) = list
        .iter()
        .position(|item| item_element(item, schema) == *first)
    else {
        return;
    };
    if rest.is_empty() || rest == [ITSELF] {
        list.remove(index);
    } else {
        remove(&mut list[index], rest, items(schema));
    }
}

// ---------------------------------------------------------------- merging

/// `applied` merged into `live` as server-side apply merges: maps key by key, map lists
/// item by item (by their keys) and sets by value, in structured-merge-diff's order
/// (live items the apply leaves out stay where they were, applied ones follow the
/// apply's order); atomic lists and maps, and scalars, are replaced.
fn merge(live: &Value, applied: &Value, schema: Option<&Value>) -> Value {
    match (live, applied) {
        (Value::Object(l), Value::Object(a)) if !atomic_map(schema) => {
            let mut out = l.clone();
            for (name, value) in a {
                let merged = match l.get(name) {
                    Some(existing) => merge(existing, value, property(schema, name)),
                    None => value.clone(),
                };
                out.insert(name.clone(), merged);
            }
            Value::Object(out)
        }
        (Value::Array(l), Value::Array(a)) if list_type(schema) != "atomic" => {
            Value::Array(merge_lists(l, a, schema))
        }
        (_, applied) => applied.clone(),
    }
}

fn merge_lists(live: &[Value], applied: &[Value], schema: Option<&Value>) -> Vec<Value> {
    let key = |item: &Value| item_element(item, schema);
    let live_keys: Vec<String> = live.iter().map(key).collect();
    let applied_keys: Vec<String> = applied.iter().map(key).collect();
    let item_schema = items(schema);
    let merged_item = |i: usize| {
        let k = &applied_keys[i];
        match live_keys.iter().position(|l| l == k) {
            Some(j) => merge(&live[j], &applied[i], item_schema),
            None => applied[i].clone(),
        }
    };
    // The applied items also live, in the apply's order: the next one is where a live
    // item of the apply may be merged in place.
    let mut shared: std::collections::VecDeque<&String> = applied_keys
        .iter()
        .filter(|k| live_keys.contains(k))
        .collect();
    let mut out = Vec::with_capacity(live.len().max(applied.len()));
    let mut done = BTreeSet::new();
    let (mut l, mut r) = (0, 0);
    while l < live.len() || r < applied.len() {
        if l < live.len() && r < applied.len() {
            if live_keys[l] == applied_keys[r] {
                if done.insert(applied_keys[r].clone()) {
                    out.push(merged_item(r));
                }
                l += 1;
                r += 1;
                shared.pop_front();
                continue;
            }
            if applied_keys.contains(&live_keys[l])
                && shared.front().is_some_and(|s| **s != live_keys[l])
            {
                l += 1;
                continue;
            }
        }
        if l < live.len() {
            if !applied_keys.contains(&live_keys[l]) {
                out.push(live[l].clone());
                l += 1;
                continue;
            }
            if done.contains(&live_keys[l]) {
                l += 1;
            }
        }
        if r < applied.len() {
            if done.insert(applied_keys[r].clone()) {
                out.push(merged_item(r));
            }
            if shared.front().is_some_and(|s| **s == applied_keys[r]) {
                shared.pop_front();
            }
            r += 1;
        }
    }
    out
}

// ---------------------------------------------------------------- FieldsV1

fn encode(fields: &FieldSet) -> Value {
    let mut root = Map::new();
    for path in fields {
        let mut node = &mut root;
        for element in path {
            node = node
                .entry(element.clone())
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
                .expect("FieldsV1 nodes are objects");
        }
    }
    Value::Object(root)
}

fn decode(node: &Value, path: &mut Path, out: &mut FieldSet) {
    match node.as_object() {
        Some(children) if !children.is_empty() => {
            for (element, child) in children {
                path.push(element.clone());
                decode(child, path, out);
                path.pop();
            }
        }
        _ if !path.is_empty() => {
            out.insert(path.clone());
        }
        _ => {}
    }
}

/// `.spec.containers[name="a"].image`, as the apiserver names a field in a conflict.
fn dotted(path: &Path) -> String {
    let mut out = String::new();
    for element in path {
        if let Some(name) = element.strip_prefix("f:") {
            out.push('.');
            out.push_str(name);
        } else if let Some(keys) = element.strip_prefix("k:") {
            let keys: Map<String, Value> = serde_json::from_str(keys).unwrap_or_default();
            let each: Vec<String> = keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
            out.push_str(&format!("[{}]", each.join(",")));
        } else if let Some(value) = element.strip_prefix("v:") {
            out.push_str(&format!("[={value}]"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn containers_schema() -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "containers": {
                "type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {"name": {"type": "string"}, "image": {"type": "string"}}}
            },
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "args": {"type": "array", "items": {"type": "string"}},
        }}}})
    }

    fn apply_as(live: Option<&Value>, applied: Value, manager: &str) -> Result<Value, Conflicts> {
        let schema = containers_schema();
        let stamp = Stamp {
            manager,
            subresource: Subresource::Main,
            api_version: "v1",
            time: json!("2026-01-01T00:00:00Z"),
        };
        apply(live, &applied, Some(&schema), false, stamp)
    }

    #[test]
    fn map_lists_merge_by_key_and_sets_by_value_atomic_lists_are_replaced() {
        let a = apply_as(
            None,
            json!({"metadata": {}, "spec": {"containers": [{"name": "app", "image": "1"}], "tags": ["x"], "args": ["a"]}}),
            "a",
        )
        .ok()
        .unwrap();
        let b = apply_as(
            Some(&a),
            json!({"metadata": {}, "spec": {"containers": [{"name": "side", "image": "p"}], "tags": ["y"]}}),
            "b",
        )
        .ok()
        .unwrap();
        assert_eq!(
            b["spec"],
            json!({"containers": [{"name": "app", "image": "1"}, {"name": "side", "image": "p"}], "tags": ["x", "y"], "args": ["a"]})
        );
        let fields = &b["metadata"]["managedFields"][1]["fieldsV1"];
        assert_eq!(
            *fields,
            json!({"f:spec": {"f:containers": {"k:{\"name\":\"side\"}": {".": {}, "f:image": {}, "f:name": {}}}, "f:tags": {"v:\"y\"": {}}}})
        );
        // `a` applies again without its tag: the tag goes; b's stay.
        let again = apply_as(
            Some(&b),
            json!({"metadata": {}, "spec": {"containers": [{"name": "app", "image": "2"}], "args": ["a"]}}),
            "a",
        )
        .ok()
        .unwrap();
        assert_eq!(
            again["spec"],
            json!({"containers": [{"name": "app", "image": "2"}, {"name": "side", "image": "p"}], "tags": ["y"], "args": ["a"]})
        );
    }

    #[test]
    fn changing_a_field_another_manager_owns_is_a_conflict_unless_forced() {
        let a = apply_as(
            None,
            json!({"metadata": {}, "spec": {"containers": [{"name": "app", "image": "1"}]}}),
            "a",
        )
        .ok()
        .unwrap();
        let conflict = apply_as(
            Some(&a),
            json!({"metadata": {}, "spec": {"containers": [{"name": "app", "image": "2"}]}}),
            "b",
        )
        .err()
        .unwrap();
        assert_eq!(
            conflict.message(),
            "Apply failed with 1 conflict: conflict with \"a\": .spec.containers[name=\"app\"].image"
        );
        // The same value is no conflict: both own it.
        let shared = apply_as(
            Some(&a),
            json!({"metadata": {}, "spec": {"containers": [{"name": "app", "image": "1"}]}}),
            "b",
        );
        assert!(shared.is_ok());
    }

    #[test]
    fn map_lists_keep_structured_merge_diffs_order() {
        let schema = containers_schema();
        let list =
            |names: &[&str]| -> Vec<Value> { names.iter().map(|n| json!({"name": n})).collect() };
        let names = |items: Vec<Value>| -> Vec<String> {
            items
                .iter()
                .map(|i| i["name"].as_str().unwrap().to_owned())
                .collect()
        };
        let s = Some(&schema["properties"]["spec"]["properties"]["containers"]);
        assert_eq!(
            names(merge_lists(&list(&["a", "b", "c"]), &list(&["c", "a"]), s)),
            ["b", "c", "a"]
        );
        assert_eq!(
            names(merge_lists(&list(&["a", "b"]), &list(&["x", "b"]), s)),
            ["a", "x", "b"]
        );
        assert_eq!(
            names(merge_lists(&list(&["a"]), &list(&["b"]), s)),
            ["a", "b"]
        );
    }
}
