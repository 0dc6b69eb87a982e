//! Which member an object goes to: rendezvous (highest random weight) hashing, so that
//! when a member joins it takes about `1/n` of the objects, each from whichever member
//! had it, and when one leaves only its objects move, spread over the others.

/// The member `key` belongs to among `members`: the one whose hash with the key is
/// highest (ties to the smaller name, so every replica agrees); `None` for no member.
pub fn assign<'a>(key: &str, members: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    members
        .into_iter()
        .map(|member| (score(member, key), member))
        .max_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.cmp(a.1)))
        .map(|(_, member)| member)
}

/// A stable 64-bit hash of `member` and `key` (FNV-1a, then SplitMix64's finalizer to
/// spread FNV's weak low bits): the same in every process and every release, which a
/// seeded hasher is not.
fn score(member: &str, key: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in member.bytes().chain([0]).chain(key.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash ^= hash >> 30;
    hash = hash.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    hash ^= hash >> 27;
    hash = hash.wrapping_mul(0x94d0_49bb_1331_11eb);
    hash ^ (hash >> 31)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn keys(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("default/object-{i}")).collect()
    }

    #[test]
    fn objects_spread_evenly_and_a_new_member_takes_only_its_share() {
        let (three, four) = (["a", "b", "c"], ["a", "b", "c", "d"]);
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        let mut moved_between_old = 0;
        let mut moved_to_new = 0;
        for key in keys(30_000) {
            let before = assign(&key, three).unwrap();
            *counts.entry(before).or_default() += 1;
            match assign(&key, four).unwrap() {
                "d" => moved_to_new += 1,
                after if after != before => moved_between_old += 1,
                _ => {}
            }
        }
        for (member, count) in &counts {
            assert!(
                (9_000..11_000).contains(count),
                "{member}: {count} of 30,000"
            );
        }
        assert_eq!(
            moved_between_old, 0,
            "nothing moves between the old members"
        );
        assert!(
            (6_700..8_300).contains(&moved_to_new),
            "{moved_to_new}: about a quarter"
        );
    }

    #[test]
    fn a_leaving_member_gives_up_only_its_objects() {
        for key in keys(3_000) {
            let before = assign(&key, ["a", "b", "c"]).unwrap();
            let after = assign(&key, ["a", "c"]).unwrap();
            if before != "b" {
                assert_eq!(before, after, "{key}");
            }
        }
        assert_eq!(assign("x", []), None);
    }
}
