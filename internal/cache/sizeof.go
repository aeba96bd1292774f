package cache

import (
	"reflect"
	"unsafe"
)

// Sizeof estimates the heap bytes reachable from v: its own size plus
// everything its pointers, slices, maps, strings and interfaces refer to,
// each pointed-to object counted once. Memory shared with other values is
// counted too, so the estimate errs high; maps are charged their entries
// plus Go's bucket overhead, roughly. It follows unexported fields, and
// stops at functions and channels (counted as one word).
func Sizeof(v any) int64 {
	if v == nil {
		return 0
	}
	s := sizer{seen: map[uintptr]bool{}, pointers: map[reflect.Type]bool{}}
	rv := reflect.ValueOf(v)
	return int64(rv.Type().Size()) + s.indirect(rv)
}

type sizer struct {
	seen     map[uintptr]bool
	pointers map[reflect.Type]bool // hasPointers, memoized
}

func (s *sizer) hasPointers(t reflect.Type) bool {
	hp, ok := s.pointers[t]
	if !ok {
		hp = hasPointers(t)
		s.pointers[t] = hp
	}
	return hp
}

// first reports whether the object at p has not been counted yet.
func (s *sizer) first(p uintptr) bool {
	if p == 0 || s.seen[p] {
		return false
	}
	s.seen[p] = true
	return true
}

// indirect is what v refers to beyond its own inline size.
func (s *sizer) indirect(v reflect.Value) int64 {
	switch v.Kind() {
	case reflect.String:
		if v.Len() == 0 {
			return 0
		}
		p := uintptr(unsafe.Pointer(unsafe.StringData(v.String())))
		if !s.first(p) {
			return 0
		}
		return int64(v.Len())
	case reflect.Pointer:
		if v.IsNil() || !s.first(v.Pointer()) {
			return 0
		}
		e := v.Elem()
		return int64(e.Type().Size()) + s.indirect(e)
	case reflect.Slice:
		if v.IsNil() || v.Cap() == 0 || !s.first(v.Pointer()) {
			return 0
		}
		n := int64(v.Cap()) * int64(v.Type().Elem().Size())
		if s.hasPointers(v.Type().Elem()) {
			for i := range v.Len() {
				n += s.indirect(v.Index(i))
			}
		}
		return n
	case reflect.Array:
		var n int64
		if s.hasPointers(v.Type().Elem()) {
			for i := range v.Len() {
				n += s.indirect(v.Index(i))
			}
		}
		return n
	case reflect.Map:
		if v.IsNil() || !s.first(v.Pointer()) {
			return 0
		}
		kt, et := v.Type().Key(), v.Type().Elem()
		// Entries plus a control byte each, over a load factor of 7/8,
		// plus the map header.
		n := int64(48) + int64(v.Len())*(int64(kt.Size())+int64(et.Size())+1)*8/7
		it := v.MapRange()
		for it.Next() {
			n += s.indirect(it.Key()) + s.indirect(it.Value())
		}
		return n
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		n := s.indirect(e)
		if e.Kind() != reflect.Pointer && e.Kind() != reflect.Map && e.Kind() != reflect.Chan && e.Kind() != reflect.Func {
			n += int64(e.Type().Size()) // boxed
		}
		return n
	case reflect.Struct:
		var n int64
		for i := range v.NumField() {
			if f := v.Field(i); s.hasPointers(f.Type()) {
				n += s.indirect(f)
			}
		}
		return n
	default: // numbers, bools, funcs, chans, unsafe pointers: inline only
		return 0
	}
}

// hasPointers reports whether a value of t can refer to other memory.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
