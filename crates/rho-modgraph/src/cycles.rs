//! Circles in a directed graph given as successor lists: its strongly connected sets (Tarjan's algorithm) and
//! one shortest circle through a node of such a set.

use std::collections::VecDeque;

/// The strongly connected sets of the graph whose node `k` has edges to `next[k]`.
pub fn strongly_connected(next: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut tarjan = Tarjan {
        next,
        counter: 0,
        index: vec![None; next.len()],
        low: vec![0; next.len()],
        stack: Vec::new(),
        on_stack: vec![false; next.len()],
        sets: Vec::new(),
    };
    for node in 0..next.len() {
        if tarjan.index[node].is_none() {
            tarjan.visit(node);
        }
    }
    tarjan.sets
}

struct Tarjan<'g> {
    next: &'g [Vec<usize>],
    counter: usize,
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    stack: Vec<usize>,
    on_stack: Vec<bool>,
    sets: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, node: usize) {
        self.index[node] = Some(self.counter);
        self.low[node] = self.counter;
        self.counter += 1;
        self.stack.push(node);
        self.on_stack[node] = true;
        for &to in &self.next[node] {
            match self.index[to] {
                None => {
                    self.visit(to);
                    self.low[node] = self.low[node].min(self.low[to]);
                }
                Some(index) if self.on_stack[to] => self.low[node] = self.low[node].min(index),
                Some(_) => {}
            }
        }
        if Some(self.low[node]) == self.index[node] {
            let mut set = Vec::new();
            while let Some(top) = self.stack.pop() {
                self.on_stack[top] = false;
                set.push(top);
                if top == node {
                    break;
                }
            }
            self.sets.push(set);
        }
    }
}

/// The nodes of a shortest circle from `start` back to itself inside `set` (first and last are `start`).
pub fn shortest_cycle(next: &[Vec<usize>], set: &[usize], start: usize) -> Vec<usize> {
    let mut came_from: Vec<Option<usize>> = vec![None; next.len()];
    let mut queue = VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for &to in &next[node] {
            if !set.contains(&to) {
                continue;
            }
            if to == start {
                let mut walk = vec![start, node];
                let mut at = node;
                while let Some(previous) = came_from[at] {
                    walk.push(previous);
                    at = previous;
                }
                walk.reverse();
                return walk;
            }
            if came_from[to].is_none() {
                came_from[to] = Some(node);
                queue.push_back(to);
            }
        }
    }
    vec![start]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_has_no_set_of_two_and_a_circle_is_found_shortest() {
        // 0 -> 1 -> 2 -> 0, 1 -> 0, 3 -> 0
        let next = vec![vec![1], vec![2, 0], vec![0], vec![0]];
        let mut sets: Vec<Vec<usize>> = strongly_connected(&next)
            .into_iter()
            .map(|mut s| {
                s.sort();
                s
            })
            .collect();
        sets.sort();
        assert_eq!(sets, [vec![0, 1, 2], vec![3]]);
        assert_eq!(shortest_cycle(&next, &[0, 1, 2], 0), [0, 1, 0]);
        assert_eq!(strongly_connected(&[vec![1], vec![2], vec![]]).len(), 3);
    }
}
