package witness

import (
	"container/list"
	"sync"
)

// entry is one remembered outcome.
type entry struct {
	found Found
	ok    bool
}

// memo is a least-recently-used map of outcomes bounded by an estimate of
// the bytes it holds.
// TODO(9a): swap for the shared bounded cache helper once it is on main.
type memo struct {
	mu    sync.Mutex
	limit int64
	used  int64
	order *list.List // front is the most recently used
	byKey map[string]*list.Element
}

type memoItem struct {
	key  string
	e    entry
	size int64
}

func newMemo(limit int64) *memo {
	return &memo{limit: limit, order: list.New(), byKey: map[string]*list.Element{}}
}

func (m *memo) get(key string) (entry, bool) {
	if m.limit <= 0 {
		return entry{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.byKey[key]
	if !ok {
		return entry{}, false
	}
	m.order.MoveToFront(el)
	return el.Value.(*memoItem).e, true
}

func (m *memo) put(key string, e entry) {
	size := entrySize(key, e)
	if m.limit <= 0 || size > m.limit {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.byKey[key]; ok {
		it := el.Value.(*memoItem)
		m.used += size - it.size
		it.e, it.size = e, size
		m.order.MoveToFront(el)
	} else {
		m.byKey[key] = m.order.PushFront(&memoItem{key: key, e: e, size: size})
		m.used += size
	}
	for m.used > m.limit {
		el := m.order.Back()
		it := el.Value.(*memoItem)
		m.order.Remove(el)
		delete(m.byKey, it.key)
		m.used -= it.size
	}
}

// len is the number of entries (for tests).
func (m *memo) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.byKey)
}

// entrySize estimates what an entry keeps alive: its key, the value (at most
// MaxValueBytes encoded, a few times that decoded), the error and overhead.
func entrySize(key string, e entry) int64 {
	size := int64(len(key)) + 128
	if e.ok {
		if enc, ok := encodeBounded(e.found.Value); ok {
			size += 4 * int64(len(enc))
		}
		if e.found.Rejection != nil {
			size += 4 * int64(len(e.found.Rejection.Error()))
		}
	}
	return size
}
