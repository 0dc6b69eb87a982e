//! Plurals as controller-gen makes them, `strings.ToLower(flect.Pluralize(kind))`: the
//! rules of gobuffalo/flect v1.0.3 (controller-tools' pluralizer), applied to the kind's
//! last word, with its dictionary, suffix rules and acronyms (`tables.rs`, the facts of
//! flect's `plural_rules.go` and `acronyms.go`). Its quirks are kept, since a CRD's
//! plural is its resource path: `Embeds` stays `embeds`, and `Cafe` is `caves`.

mod tables;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use tables::{ACRONYMS, DICTIONARY, SUFFIXES};

/// A word of flect's dictionary.
pub(super) struct Word {
    singular: &'static str,
    plural: &'static str,
    alternative: Option<&'static str>,
    /// Its plural does not lead back to it (`media` is also `medium`'s).
    unidirectional: bool,
    /// It is looked up as a whole word only, never as the end of a compound.
    exact: bool,
}

/// A suffix rule: a word ending in `suffix` ends in `replacement` instead (a rule whose
/// replacement is its suffix leaves a word that is plural already as it is).
struct Rule {
    suffix: &'static str,
    replacement: &'static str,
}

struct Lookups {
    single_to_plural: BTreeMap<&'static str, &'static str>,
    plural_to_single: BTreeMap<&'static str, &'static str>,
    rules: Vec<Rule>,
}

fn lookups() -> &'static Lookups {
    static LOOKUPS: OnceLock<Lookups> = OnceLock::new();
    LOOKUPS.get_or_init(|| {
        let mut single_to_plural = BTreeMap::new();
        let mut plural_to_single = BTreeMap::new();
        for word in DICTIONARY {
            single_to_plural.insert(word.singular, word.plural);
            if !word.unidirectional {
                plural_to_single.insert(word.plural, word.singular);
                if let Some(alternative) = word.alternative {
                    plural_to_single.insert(alternative, word.singular);
                }
            }
        }
        // flect prepends each rule, and before it a rule keeping its plural: the
        // dictionary's compound rules (last word first) come before the suffix rules.
        let pair = |(suffix, replacement): (&'static str, &'static str)| {
            [
                Rule {
                    suffix: replacement,
                    replacement,
                },
                Rule {
                    suffix,
                    replacement,
                },
            ]
        };
        let compounds = DICTIONARY
            .iter()
            .rev()
            .filter(|w| !w.exact)
            .flat_map(|w| pair((w.singular, w.plural)));
        let rules = compounds
            .chain(SUFFIXES.iter().copied().flat_map(pair))
            .collect();
        Lookups {
            single_to_plural,
            plural_to_single,
            rules,
        }
    })
}

/// The plural resource name controller-gen gives `kind`.
pub fn plural(kind: &str) -> String {
    pluralize(kind).to_ascii_lowercase()
}

/// `flect.Pluralize`: the last word of `original` made plural.
fn pluralize(original: &str) -> String {
    let words = words(original);
    let Some(last) = words.last() else {
        return String::new();
    };
    let lookups = lookups();
    if let Some(plural) = lookups.single_to_plural.get(original) {
        return (*plural).to_owned();
    }
    let lower = last.to_ascii_lowercase();
    if lookups.plural_to_single.contains_key(original)
        || lookups.plural_to_single.contains_key(lower.as_str())
    {
        return original.to_owned();
    }
    // As flect's `ReplaceSuffix`: the last word off the end, when it is the end as
    // written (an acronym is written in capitals, and then it is not).
    let stem = original.strip_suffix(last.as_str()).unwrap_or(original);
    if let Some(plural) = lookups.single_to_plural.get(lower.as_str()) {
        return format!("{stem}{plural}");
    }
    if let Some(rule) = lookups.rules.iter().find(|r| last.ends_with(r.suffix)) {
        let kept = &last[..last.len() - rule.suffix.len()];
        return format!("{stem}{kept}{}", rule.replacement);
    }
    if lower.ends_with('s') {
        return original.to_owned();
    }
    format!("{original}s")
}

/// flect's words of an identifier (`toParts`), for the ASCII names kinds have: a word
/// starts at a capital after a small letter or digit, or after an acronym; an acronym
/// word is written in capitals.
fn words(text: &str) -> Vec<String> {
    let is_acronym = |word: &str| ACRONYMS.contains(&word.to_ascii_uppercase().as_str());
    if is_acronym(text) {
        return vec![text.to_ascii_uppercase()];
    }
    let mut words = Vec::new();
    let mut push = |word: &mut String| {
        let finished = std::mem::take(word);
        let trimmed = finished.trim_matches(|c: char| c.is_whitespace() || "_:-/".contains(c));
        if !trimmed.is_empty() {
            words.push(if is_acronym(trimmed) {
                trimmed.to_ascii_uppercase()
            } else {
                trimmed.to_owned()
            });
        }
    };
    let mut word = String::new();
    let mut previous_capital = false;
    for c in text.chars() {
        let capital = c.is_uppercase();
        let separator = c.is_whitespace() || "_:-/".contains(c);
        if separator || (capital && (!previous_capital || is_acronym(&word))) {
            push(&mut word);
            word.push(c);
        } else if c.is_alphanumeric() || c.is_ascii_punctuation() {
            word.push(c);
        } else {
            push(&mut word);
        }
        previous_capital = capital;
    }
    push(&mut word);
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_at_capitals_and_after_acronyms() {
        assert_eq!(words("CronJob"), ["Cron", "Job"]);
        assert_eq!(words("IPAddress"), ["IP", "Address"]);
        assert_eq!(words("HTTPRoute"), ["HTTP", "Route"]);
        assert_eq!(words("V1Thing"), ["V1", "Thing"]);
        assert_eq!(words("Dns"), ["DNS"]);
    }
}
