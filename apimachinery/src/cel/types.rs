//! CEL types as cel-go's checker keeps them while it types a rule: type parameters bound
//! as overloads are tried (its `mapping`), which type is assignable to which, the more
//! general of two, and the names its errors print (`FormatCELType`).

use std::fmt;
use std::rc::Rc;

use super::decl::{Decl, Kind};

/// A CEL type. An object of the schema is a type of its own, told apart from every
/// other by its place in the schema (as the apiserver names each by its path).
#[derive(Clone, Debug)]
pub(crate) enum Ty<'d> {
    Dyn,
    /// What an expression that could not be typed has: assignable to anything, so that
    /// one mistake is reported once.
    Error,
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Duration,
    Timestamp,
    List(Rc<Ty<'d>>),
    Map(Rc<Ty<'d>>, Rc<Ty<'d>>),
    Object(&'d Decl),
    /// `optional_type(T)`.
    Optional(Rc<Ty<'d>>),
    /// A type as a value: `int` in `type(x) == int`.
    Type(Rc<Ty<'d>>),
    /// Kubernetes' library types: `net.IP`, `kubernetes.Quantity`, …
    Opaque(&'static str),
    /// A type parameter: an overload's (`A`), made fresh for each resolution.
    Param(u32),
}

impl<'d> Ty<'d> {
    /// The type of a schema node.
    pub fn of(decl: &'d Decl) -> Ty<'d> {
        match &decl.kind {
            Kind::Object { .. } => Ty::Object(decl),
            Kind::Map(values) => Ty::Map(Rc::new(Ty::String), Rc::new(Ty::of(values))),
            Kind::List(items, _) => Ty::List(Rc::new(Ty::of(items))),
            Kind::String => Ty::String,
            Kind::Bytes => Ty::Bytes,
            Kind::Duration => Ty::Duration,
            Kind::Timestamp => Ty::Timestamp,
            Kind::Int => Ty::Int,
            Kind::Double => Ty::Double,
            Kind::Bool => Ty::Bool,
            Kind::Dyn => Ty::Dyn,
        }
    }

    pub fn list(item: Ty<'d>) -> Ty<'d> {
        Ty::List(Rc::new(item))
    }

    pub fn optional(inner: Ty<'d>) -> Ty<'d> {
        Ty::Optional(Rc::new(inner))
    }

    pub fn is_dyn_or_error(&self) -> bool {
        matches!(self, Ty::Dyn | Ty::Error)
    }

    /// Scalars have a size of one in cost estimates.
    pub fn scalar(&self) -> bool {
        match self {
            Ty::Bool | Ty::Double | Ty::Duration | Ty::Int | Ty::Timestamp | Ty::Uint => true,
            Ty::Optional(inner) => inner.scalar(),
            _ => false,
        }
    }

    pub fn textual(&self) -> bool {
        matches!(self, Ty::String | Ty::Bytes)
    }

    /// The same type, exactly (cel-go's `IsExactType`).
    pub fn exact(&self, other: &Ty<'d>) -> bool {
        match (self, other) {
            (Ty::List(a), Ty::List(b))
            | (Ty::Optional(a), Ty::Optional(b))
            | (Ty::Type(a), Ty::Type(b)) => a.exact(b),
            (Ty::Map(ak, av), Ty::Map(bk, bv)) => ak.exact(bk) && av.exact(bv),
            (Ty::Object(a), Ty::Object(b)) => std::ptr::eq(*a, *b),
            (Ty::Opaque(a), Ty::Opaque(b)) => a == b,
            (Ty::Param(a), Ty::Param(b)) => a == b,
            _ => std::mem::discriminant(self) == std::mem::discriminant(other),
        }
    }
}

impl fmt::Display for Ty<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Dyn | Ty::Param(_) => f.write_str("dyn"),
            Ty::Error => f.write_str("!error!"),
            Ty::Null => f.write_str("null"),
            Ty::Bool => f.write_str("bool"),
            Ty::Int => f.write_str("int"),
            Ty::Uint => f.write_str("uint"),
            Ty::Double => f.write_str("double"),
            Ty::String => f.write_str("string"),
            Ty::Bytes => f.write_str("bytes"),
            Ty::Duration => f.write_str("duration"),
            Ty::Timestamp => f.write_str("timestamp"),
            Ty::List(item) => write!(f, "list({item})"),
            Ty::Map(key, value) => write!(f, "map({key}, {value})"),
            Ty::Object(_) => f.write_str("object"),
            Ty::Optional(inner) => write!(f, "optional_type({inner})"),
            Ty::Type(inner) => write!(f, "type({inner})"),
            Ty::Opaque(name) => f.write_str(name),
        }
    }
}

/// The bindings of type parameters made so far (cel-go's `mapping`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Mapping<'d> {
    bound: Vec<Option<Ty<'d>>>,
}

impl<'d> Mapping<'d> {
    /// A type parameter bound to nothing yet.
    pub fn fresh(&mut self) -> Ty<'d> {
        self.bound.push(None);
        Ty::Param(self.bound.len() as u32 - 1)
    }

    fn find(&self, param: u32) -> Option<&Ty<'d>> {
        self.bound.get(param as usize).and_then(Option::as_ref)
    }

    fn bind(&mut self, param: u32, ty: Ty<'d>) {
        self.bound[param as usize] = Some(ty);
    }

    /// Whether a value of `actual` may be given where `declared` is asked, binding type
    /// parameters on the way; on `false` nothing is bound.
    pub fn assignable(&mut self, declared: &Ty<'d>, actual: &Ty<'d>) -> bool {
        let mut trial = self.clone();
        let ok = trial.assign(declared, actual);
        if ok {
            *self = trial;
        }
        ok
    }

    /// `assignable` for each pair, on a mapping that is itself a trial: on `false` it
    /// may be left half bound, for the caller to drop.
    pub fn bind_all(&mut self, declared: &[Ty<'d>], actual: &[Ty<'d>]) -> bool {
        declared.len() == actual.len()
            && declared.iter().zip(actual).all(|(d, a)| self.assign(d, a))
    }

    // cel-go's `internalIsAssignable(m, t1, t2)`.
    fn assign(&mut self, t1: &Ty<'d>, t2: &Ty<'d>) -> bool {
        if let Ty::Param(p) = t2 {
            let (valid, bound) = self.substitution(t1, *p);
            if valid {
                return true;
            }
            if bound {
                return false;
            }
        }
        if let Ty::Param(p) = t1 {
            return self.substitution(t2, *p).0;
        }
        if t1.is_dyn_or_error() || t2.is_dyn_or_error() {
            return true;
        }
        match (t1, t2) {
            (Ty::Null, other) | (other, Ty::Null) => nullable(other),
            (Ty::Type(_), other) => matches!(other, Ty::Type(_)),
            (Ty::List(a), Ty::List(b)) | (Ty::Optional(a), Ty::Optional(b)) => self.assign(a, b),
            (Ty::Map(ak, av), Ty::Map(bk, bv)) => self.assign(ak, bk) && self.assign(av, bv),
            (Ty::Opaque(a), Ty::Opaque(b)) => a == b,
            (a, b) => a.exact(b),
        }
    }

    // cel-go's `isValidTypeSubstitution(m, t1, param)`: (valid, whether the parameter
    // was bound already).
    fn substitution(&mut self, t1: &Ty<'d>, param: u32) -> (bool, bool) {
        if let Ty::Param(q) = t1
            && *q == param
        {
            return (true, true);
        }
        if let Some(bound) = self.find(param).cloned() {
            if t1.exact(&bound) {
                return (true, true);
            }
            if self.assign(t1, &bound) {
                let general = most_general(t1, &bound);
                if self.not_referenced_in(param, &general) {
                    self.bind(param, general);
                }
                return (true, true);
            }
            return (false, true);
        }
        if self.not_referenced_in(param, t1) {
            self.bind(param, t1.clone());
            return (true, false);
        }
        (false, false)
    }

    fn not_referenced_in(&self, param: u32, within: &Ty<'d>) -> bool {
        match within {
            Ty::Param(q) if *q == param => false,
            Ty::Param(q) => self
                .find(*q)
                .is_none_or(|bound| self.not_referenced_in(param, bound)),
            Ty::List(a) | Ty::Optional(a) | Ty::Type(a) => self.not_referenced_in(param, a),
            Ty::Map(k, v) => self.not_referenced_in(param, k) && self.not_referenced_in(param, v),
            _ => true,
        }
    }

    /// `ty` with its bound parameters replaced; unbound ones become `dyn` when
    /// `unbound_to_dyn`.
    pub fn substitute(&self, ty: &Ty<'d>, unbound_to_dyn: bool) -> Ty<'d> {
        match ty {
            Ty::Param(p) => match self.find(*p) {
                Some(bound) => self.substitute(bound, unbound_to_dyn),
                None if unbound_to_dyn => Ty::Dyn,
                None => ty.clone(),
            },
            Ty::List(a) => Ty::List(Rc::new(self.substitute(a, unbound_to_dyn))),
            Ty::Optional(a) => Ty::Optional(Rc::new(self.substitute(a, unbound_to_dyn))),
            Ty::Type(a) => Ty::Type(Rc::new(self.substitute(a, unbound_to_dyn))),
            Ty::Map(k, v) => Ty::Map(
                Rc::new(self.substitute(k, unbound_to_dyn)),
                Rc::new(self.substitute(v, unbound_to_dyn)),
            ),
            other => other.clone(),
        }
    }
}

/// Types a `null` may stand for (cel-go's legacy nullable types): objects, durations,
/// timestamps, optionals and library types (`validate(x) == null` is a rule Gateway
/// API ships).
fn nullable(ty: &Ty<'_>) -> bool {
    matches!(
        ty,
        Ty::Null | Ty::Object(_) | Ty::Duration | Ty::Timestamp | Ty::Opaque(_) | Ty::Optional(_)
    )
}

/// cel-go's `isEqualOrLessSpecific`.
fn less_specific(t1: &Ty<'_>, t2: &Ty<'_>) -> bool {
    if matches!(t1, Ty::Dyn | Ty::Param(_)) {
        return true;
    }
    if matches!(t2, Ty::Dyn | Ty::Param(_)) {
        return false;
    }
    match (t1, t2) {
        (Ty::List(a), Ty::List(b)) | (Ty::Optional(a), Ty::Optional(b)) => less_specific(a, b),
        (Ty::Map(ak, av), Ty::Map(bk, bv)) => less_specific(ak, bk) && less_specific(av, bv),
        (Ty::Type(_), Ty::Type(_)) => true,
        (a, b) => a.exact(b),
    }
}

/// The more general of two types that are assignable to each other.
pub(crate) fn most_general<'d>(t1: &Ty<'d>, t2: &Ty<'d>) -> Ty<'d> {
    match less_specific(t1, t2) {
        true => t1.clone(),
        false => t2.clone(),
    }
}

/// Whether two types are the same, as the homogeneous-literal check compares them
/// (cel-go's `IsEquivalentType`: parameters compared too, `dyn` only to `dyn`).
pub(crate) fn equivalent(a: &Ty<'_>, b: &Ty<'_>) -> bool {
    match (a, b) {
        (Ty::Param(_), Ty::Param(_)) => true,
        _ => a.exact(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parameter_binds_to_the_first_type_and_refuses_another() {
        let mut m = Mapping::default();
        let a = m.fresh();
        assert!(m.bind_all(&[a.clone(), a.clone()], &[Ty::Int, Ty::Int]));
        let mut m = Mapping::default();
        let a = m.fresh();
        assert!(!m.bind_all(&[a.clone(), a.clone()], &[Ty::Int, Ty::String]));
        // dyn goes with anything.
        let mut m = Mapping::default();
        let a = m.fresh();
        assert!(m.bind_all(&[a.clone(), a.clone()], &[Ty::Dyn, Ty::String]));
        let mut m = Mapping::default();
        let a = m.fresh();
        let list_a = Ty::list(a.clone());
        assert!(m.bind_all(&[list_a.clone(), a.clone()], &[Ty::list(Ty::Int), Ty::Int]));
        assert_eq!(m.substitute(&list_a, true).to_string(), "list(int)");
    }

    #[test]
    fn null_stands_for_objects_and_timestamps_but_not_strings() {
        let mut m = Mapping::default();
        let a = m.fresh();
        assert!(!m.bind_all(&[a.clone(), a.clone()], &[Ty::String, Ty::Null]));
        let mut m = Mapping::default();
        let a = m.fresh();
        assert!(m.bind_all(&[a.clone(), a.clone()], &[Ty::Timestamp, Ty::Null]));
        let mut m = Mapping::default();
        let a = m.fresh();
        let validated = Ty::optional(Ty::list(Ty::String));
        assert!(m.bind_all(&[a.clone(), a.clone()], &[validated, Ty::Null]));
    }
}
