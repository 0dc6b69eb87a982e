//! A bound on how deeply a file nests, checked on the token stream before syn sees it:
//! syn (and crdgen after it) recurses once per level of `Option<Option<…>>`, `((…))` or
//! `mod a { mod b { … } }`, so a few hundred levels would overflow the stack.
//! proc-macro2 lexes without recursion, and this walk keeps its own stack.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

/// The deepest nesting crdgen reads: brackets of every kind plus the generic arguments
/// open at one place. Real API types stay far below it; `pipeline` runs on a thread
/// whose stack holds this many levels in a debug build.
pub const MAX_NESTING: usize = 128;

/// Where `tokens` first nest deeper than [`MAX_NESTING`], if anywhere.
///
/// A `<` opens a level and a `>` closes one, except in `->`; a `;`, a `=>` or a block
/// closes every `<` of its bracket, so comparisons in function bodies do not add up.
pub fn too_deep(tokens: &TokenStream) -> Option<Span> {
    // One entry per open bracket: its remaining tokens and the `<` open inside it.
    let mut stack = vec![(tokens.clone().into_iter(), 0usize)];
    let mut open_angles = 0usize;
    let mut previous: Option<char> = None;
    while let Some((iter, angles)) = stack.last_mut() {
        let Some(tree) = iter.next() else {
            open_angles -= *angles;
            stack.pop();
            continue;
        };
        let punct = match &tree {
            TokenTree::Punct(p) => Some(p.as_char()),
            _ => None,
        };
        match &tree {
            TokenTree::Group(g) => {
                if g.delimiter() == Delimiter::Brace {
                    // Generic arguments close before a block opens: `if a < b { .. }`.
                    open_angles -= *angles;
                    *angles = 0;
                }
                if stack.len() + open_angles > MAX_NESTING {
                    return Some(g.span_open());
                }
                stack.push((g.stream().into_iter(), 0));
            }
            TokenTree::Punct(p) if p.as_char() == '<' => {
                *angles += 1;
                open_angles += 1;
                // The outermost entry is the file itself, not a bracket.
                if stack.len() - 1 + open_angles > MAX_NESTING {
                    return Some(p.span());
                }
            }
            TokenTree::Punct(p)
                if p.as_char() == '>'
                    && previous != Some('-')
                    && previous != Some('=')
                    && *angles > 0 =>
            {
                *angles -= 1;
                open_angles -= 1;
            }
            // A match arm's `=>` ends its pattern and guard: `x if a < b => ..`.
            TokenTree::Punct(p)
                if p.as_char() == ';' || (p.as_char() == '>' && previous == Some('=')) =>
            {
                open_angles -= *angles;
                *angles = 0;
            }
            _ => {}
        }
        previous = punct;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_ok(src: &str) -> bool {
        too_deep(&src.parse().unwrap()).is_none()
    }

    #[test]
    fn counts_brackets_and_generic_arguments() {
        let n = MAX_NESTING;
        let nested = |open: &str, close: &str, depth: usize| {
            format!(
                "struct A {{ x: {}i32{} }}",
                open.repeat(depth),
                close.repeat(depth)
            )
        };
        // The struct's braces are one level.
        assert!(depth_ok(&nested("Option<", ">", n - 1)));
        assert!(!depth_ok(&nested("Option<", ">", n)));
        assert!(depth_ok(&nested("(", ",)", n - 1)));
        assert!(!depth_ok(&nested("[", "; 1]", n)));
        assert!(!depth_ok(&format!(
            "{}{}",
            "mod a {".repeat(n + 1),
            "}".repeat(n + 1)
        )));
    }

    #[test]
    fn comparisons_and_arrows_do_not_add_up() {
        let body = "if a < b { } while c < d { } let e = f < g; ".repeat(2 * MAX_NESTING);
        assert!(depth_ok(&format!("fn f() -> bool {{ {body} true }}")));
        let arms = "x if a < b => 1, ".repeat(2 * MAX_NESTING);
        assert!(depth_ok(&format!("fn f() {{ match x {{ {arms} }}; }}")));
        let closures = "let f = |x| -> i32 { x }; ".repeat(2 * MAX_NESTING);
        assert!(depth_ok(&format!("fn g() {{ {closures} }}")));
    }
}
