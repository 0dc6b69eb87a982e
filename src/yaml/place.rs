//! Where a node of a block-style YAML document is written, found from its path without
//! parsing: the document is scanned for each key below the one before it, by indent.
//! For diagnostics about a file that was parsed already (a CRD's schema node): the
//! parser keeps no positions, and a CRD's text is read again only when something
//! needs placing.

/// One step down a document.
pub enum Step<'a> {
    /// A map's key.
    Key(&'a str),
    /// The item of a list whose `key` is `value` (`- name: v1`).
    Item { key: &'a str, value: &'a str },
}

/// The line and column (from 1) of the deepest node of `steps` found in the document
/// starting at line `start` of `text`; `start`, column 1, when not even the first is.
pub fn place(text: &str, start: usize, steps: &[Step<'_>]) -> (usize, usize) {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = (start, 1);
    let mut next = start.saturating_sub(1);
    // The column of the key last found: what is below it is indented further.
    let mut within: Option<usize> = None;
    'steps: for step in steps {
        for (n, line) in lines.iter().enumerate().skip(next) {
            if line.starts_with("---") && n + 1 > start {
                break 'steps;
            }
            let content = line.trim_start();
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            let indent = line.len() - content.len();
            // A list's items may stand at their key's own indent.
            let (key_col, text) = match content.strip_prefix("- ") {
                Some(rest) => (indent + 2, rest.trim_start()),
                None => (indent, content),
            };
            if within.is_some_and(|w| key_col <= w) {
                break 'steps;
            }
            let hit = match step {
                Step::Key(key) => text.strip_prefix(key).is_some_and(|r| r.starts_with(':')),
                Step::Item { key, value } => {
                    content.starts_with("- ")
                        && text
                            .strip_prefix(key)
                            .and_then(|r| r.strip_prefix(':'))
                            .is_some_and(|r| r.trim().trim_matches(['"', '\'']) == *value)
                }
            };
            if hit {
                found = (n + 1, key_col + 1);
                within = Some(match step {
                    // The item's other keys are at its first key's column.
                    Step::Item { .. } => key_col - 1,
                    Step::Key(_) => key_col,
                });
                next = n + 1;
                continue 'steps;
            }
        }
        break;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRD: &str = "\
# a header
---
apiVersion: apiextensions.k8s.io/v1
spec:
  versions:
  - name: v1alpha1
    schema:
      openAPIV3Schema:
        properties:
          size: {type: string}
  - name: v1
    schema:
      openAPIV3Schema:
        properties:
          spec:
            properties:
              replicas:
                type: integer
          status: {}
";

    fn at(steps: &[Step<'_>]) -> (usize, usize) {
        place(CRD, 3, steps)
    }

    #[test]
    fn keys_and_items_are_found_below_each_other() {
        let version = |v| {
            [
                Step::Key("spec"),
                Step::Key("versions"),
                Step::Item {
                    key: "name",
                    value: v,
                },
            ]
        };
        assert_eq!(at(&version("v1")), (11, 5));
        let mut path: Vec<Step<'_>> = version("v1").into();
        path.extend([
            Step::Key("schema"),
            Step::Key("openAPIV3Schema"),
            Step::Key("properties"),
            Step::Key("spec"),
            Step::Key("properties"),
            Step::Key("replicas"),
        ]);
        assert_eq!(at(&path), (17, 15));
        // Not in v1alpha1, whose block ends before v1's `spec`: its properties are
        // as deep as is found.
        let mut path: Vec<Step<'_>> = version("v1alpha1").into();
        path.extend([
            Step::Key("schema"),
            Step::Key("openAPIV3Schema"),
            Step::Key("properties"),
            Step::Key("spec"),
        ]);
        assert_eq!(at(&path), (9, 9));
        assert_eq!(at(&[Step::Key("kind")]), (3, 1));
    }
}
