//! Rules of the engine's own value types wherever a component holds one: a
//! [`Timer`] field, in a list, an option or an enum variant, is checked as
//! the component's own fields are, without the component's `validate`
//! having to name it (visitor over bevy_reflect's view of the value).

use bevy_reflect::{PartialReflect, ReflectRef};

use crate::time::Timer;
use crate::validation::InvalidValue;

/// Walks `value` (a component) and checks every engine value with rules of
/// its own; the error's field is dotted from the component
/// (`horn.duration`, `horns.1.duration`).
///
/// # Errors
/// [`InvalidValue`] for the first value that breaks its rule.
pub(crate) fn nested(value: &dyn PartialReflect) -> Result<(), InvalidValue> {
    walk(value, "")
}

fn walk(value: &dyn PartialReflect, path: &str) -> Result<(), InvalidValue> {
    if let Some(timer) = value.try_downcast_ref::<Timer>() {
        return timer.validate().map_err(|mut invalid| {
            invalid.field = join(path, &invalid.field);
            invalid
        });
    }
    match value.reflect_ref() {
        ReflectRef::Struct(s) => {
            for i in 0..s.field_len() {
                if let (Some(field), Some(name)) = (s.field_at(i), s.name_at(i)) {
                    walk(field, &join(path, name))?;
                }
            }
        }
        ReflectRef::TupleStruct(s) => {
            for (i, field) in s.iter_fields().enumerate() {
                walk(field, &join(path, &i.to_string()))?;
            }
        }
        ReflectRef::Tuple(t) => {
            for (i, field) in t.iter_fields().enumerate() {
                walk(field, &join(path, &i.to_string()))?;
            }
        }
        ReflectRef::List(list) => {
            for (i, item) in list.iter().enumerate() {
                walk(item, &join(path, &i.to_string()))?;
            }
        }
        ReflectRef::Array(array) => {
            for (i, item) in array.iter().enumerate() {
                walk(item, &join(path, &i.to_string()))?;
            }
        }
        ReflectRef::Enum(e) => {
            // A variant's fields are written under the enum's field, as the
            // components' own rules name them (`kind.range`).
            for i in 0..e.field_len() {
                if let Some(field) = e.field_at(i) {
                    let name = e.name_at(i).map_or_else(|| i.to_string(), str::to_owned);
                    walk(field, &join(path, &name))?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_owned()
    } else {
        format!("{path}.{field}")
    }
}

#[cfg(test)]
mod tests {
    use bevy_reflect::Reflect;

    use super::nested;
    use crate::time::Timer;

    #[derive(Reflect)]
    struct Siren {
        horn: Timer,
        horns: Vec<Timer>,
        spare: Option<Timer>,
    }

    #[test]
    fn a_timer_at_any_depth_is_checked_and_named() {
        let good = Timer::once(1.0);
        let mut bad = good;
        bad.duration = -1.0;
        let siren = |horn, horns, spare| Siren { horn, horns, spare };
        assert!(nested(&siren(good, vec![good], Some(good))).is_ok());
        let cases = [
            (siren(bad, vec![], None), "horn.duration"),
            (siren(good, vec![good, bad], None), "horns.1.duration"),
            (siren(good, vec![], Some(bad)), "spare.0.duration"),
        ];
        for (value, field) in cases {
            assert_eq!(nested(&value).unwrap_err().field, field);
        }
    }
}
