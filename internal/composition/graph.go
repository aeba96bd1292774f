package composition

import (
	"container/heap"
	"slices"
	"strings"
)

// walkOrder orders the nodes topologically (Kahn), breaking ties by
// document order so the report is deterministic. Nodes on or behind a cycle
// follow in document order; cycles lists one loop per strongly connected
// component, each starting at its earliest node, e.g. "a -> b -> a".
func walkOrder(nodes []flatNode, edges []Edge) (order []int, cycles []string) {
	index := make(map[string]int, len(nodes))
	for i, n := range nodes {
		index[n.ID] = i
	}
	succ := make([][]int, len(nodes))
	indegree := make([]int, len(nodes))
	for _, e := range edges {
		from, to := index[e.From], index[e.To]
		succ[from] = append(succ[from], to)
		indegree[to]++
	}
	ready := &indexHeap{}
	for i := range nodes {
		if indegree[i] == 0 {
			heap.Push(ready, i)
		}
	}
	placed := make([]bool, len(nodes))
	for ready.Len() > 0 {
		n := heap.Pop(ready).(int)
		placed[n] = true
		order = append(order, n)
		for _, s := range succ[n] {
			indegree[s]--
			if indegree[s] == 0 {
				heap.Push(ready, s)
			}
		}
	}
	if len(order) == len(nodes) {
		return order, nil
	}
	for i := range nodes {
		if !placed[i] {
			order = append(order, i)
		}
	}
	for _, loop := range findCycles(succ, placed) {
		names := make([]string, len(loop))
		for i, n := range loop {
			names[i] = nodes[n].ID
		}
		cycles = append(cycles, strings.Join(names, " -> "))
	}
	return order, cycles
}

// indexHeap is a min-heap of node indexes: the ready node that comes
// first in the document is walked first.
type indexHeap []int

func (h indexHeap) Len() int           { return len(h) }
func (h indexHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h indexHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *indexHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *indexHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// findCycles returns one cycle per strongly connected component (Tarjan,
// iterative so that a long chain cannot exhaust the stack) among the nodes
// Kahn's walk could not place. Each cycle starts and ends at the
// component's smallest index and follows successors in edge order.
func findCycles(succ [][]int, placed []bool) [][]int {
	n := len(succ)
	comp := make([]int, n)
	for i := range comp {
		comp[i] = -1
	}
	indexOf := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range indexOf {
		indexOf[i] = -1
	}
	var stack []int
	next, components := 0, 0
	type frame struct{ v, edge int }
	for root := 0; root < n; root++ {
		if placed[root] || indexOf[root] >= 0 {
			continue
		}
		call := []frame{{root, 0}}
		indexOf[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			top := &call[len(call)-1]
			v := top.v
			if top.edge < len(succ[v]) {
				w := succ[v][top.edge]
				top.edge++
				if placed[w] {
					continue
				}
				if indexOf[w] < 0 {
					indexOf[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, 0})
				} else if onStack[w] {
					low[v] = min(low[v], indexOf[w])
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				parent := call[len(call)-1].v
				low[parent] = min(low[parent], low[v])
			}
			if low[v] == indexOf[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = components
					if w == v {
						break
					}
				}
				components++
			}
		}
	}
	var loops [][]int
	seen := map[int]bool{}
	for start := 0; start < n; start++ {
		c := comp[start]
		if c < 0 || seen[c] {
			continue
		}
		seen[c] = true
		if loop := cycleThrough(start, c, succ, comp); loop != nil {
			loops = append(loops, loop)
		}
	}
	return loops
}

// cycleThrough finds the shortest cycle from start back to start inside
// its component (breadth first, successors in edge order), or nil for a
// single node without a self-loop.
func cycleThrough(start, component int, succ [][]int, comp []int) []int {
	parent := map[int]int{}
	queue := []int{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range succ[v] {
			if comp[w] != component {
				continue
			}
			if w == start {
				path := []int{start}
				for x := v; x != start; x = parent[x] {
					path = append(path, x)
				}
				slices.Reverse(path[1:])
				return append(path, start)
			}
			if _, visited := parent[w]; !visited {
				parent[w] = v
				queue = append(queue, w)
			}
		}
	}
	return nil
}
