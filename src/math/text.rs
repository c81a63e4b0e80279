//! Text helpers shared by every layer.

/// The Levenshtein distance between `a` and `b`, in characters: the fewest insertions,
/// deletions and substitutions that turn one into the other. Linear memory in `b`.
///
/// ```
/// use humanoid::math::text::edit_distance;
/// assert_eq!(edit_distance("leftUpperArm", "leftUperArm"), 1);
/// assert_eq!(edit_distance("", "abc"), 3);
/// ```
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            current[j + 1] = (previous[j] + cost)
                .min(previous[j + 1] + 1)
                .min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}
