//! What text costs against a context budget: a line costs its UTF-8 length plus one (its
//! line break). Kept apart so that building the pieces and laying them out count alike.

pub fn cost(line: &str) -> usize {
    line.len() + 1
}

/// What a group of lines costs, all of them or none.
pub fn group_cost(lines: &[String]) -> usize {
    lines.iter().map(|l| cost(l)).sum()
}
