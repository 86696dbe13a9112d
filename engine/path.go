package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/casegraph/casegraph/engine/cmmn"
)

// A case file path names item instances from the top of the case file:
// item names separated by "/", with an optional 0-based [index] on array
// items, e.g. "Order/Lines[1]/Product". An array item without an index
// on the way down means its current element.

// pathPart is one step of a path.
type pathPart struct {
	text  string // as written, for messages
	name  string
	index int // -1 when the step has no [index]
}

// parsePath splits a path into its steps. It returns the offending part
// when the syntax is wrong.
func parsePath(path string) ([]pathPart, string, bool) {
	if path == "" {
		return nil, "", true
	}
	segments := strings.Split(path, "/")
	parts := make([]pathPart, 0, len(segments))
	for _, seg := range segments {
		p := pathPart{text: seg, name: seg, index: -1}
		if open := strings.IndexByte(seg, '['); open >= 0 {
			if !strings.HasSuffix(seg, "]") || open == 0 {
				return nil, seg, false
			}
			n, err := strconv.Atoi(seg[open+1 : len(seg)-1])
			if err != nil || n < 0 || strings.HasPrefix(seg[open+1:], "+") {
				return nil, seg, false
			}
			p.name, p.index = seg[:open], n
		}
		if p.name == "" || strings.ContainsAny(p.name, "[]") {
			return nil, seg, false
		}
		parts = append(parts, p)
	}
	return parts, "", true
}

// slot is where one case file item instance lives: the object holding it,
// and for an array element its position.
type slot struct {
	def *cmmn.CaseFileItem
	obj map[string]any // holds the item under def.Name()
	// index is the element's position for an array element, -1 for a
	// whole item (a whole array included).
	index int
	// path is the instance path, with [index] for an element; array is
	// the instance path of the array itself (for arrays only).
	path  string
	array string
}

func (s slot) isWholeArray() bool { return s.def.IsArray() && s.index < 0 }

// list returns the array holding an array item's elements.
func (s slot) list() []any {
	l, _ := s.obj[s.def.Name()].([]any)
	return l
}

// get returns the value in the slot, nil when there is none.
func (s slot) get() any {
	if s.index < 0 {
		return s.obj[s.def.Name()]
	}
	if l := s.list(); s.index < len(l) {
		return l[s.index]
	}
	return nil
}

// set stores v in the slot; an element one past the end is appended.
func (s slot) set(v any) {
	if s.index < 0 {
		s.obj[s.def.Name()] = v
		return
	}
	l := s.list()
	if s.index < len(l) {
		l[s.index] = v
		return
	}
	s.obj[s.def.Name()] = append(l, v)
}

// element returns the slot of element i of a whole-array slot.
func (s slot) element(i int) slot {
	return slot{def: s.def, obj: s.obj, index: i, path: s.array + "[" + strconv.Itoa(i) + "]", array: s.array}
}

// child returns the slot of child item def inside the object value of s.
func childSlot(obj map[string]any, parentPath string, def *cmmn.CaseFileItem) slot {
	path := def.Name()
	if parentPath != "" {
		path = parentPath + "/" + def.Name()
	}
	s := slot{def: def, obj: obj, index: -1, path: path}
	if def.IsArray() {
		s.array = path
	}
	return s
}

// topItem returns the top-level case file item with the given name.
func (r *run) topItem(name string) *cmmn.CaseFileItem {
	for _, f := range r.def.CaseFile() {
		if f.Name() == name {
			return f
		}
	}
	return nil
}

func invalidPath(path, part string) error {
	return errorf(ErrInvalid, "The path '%s' is invalid, since the part '%s' is not defined in the case file", path, part)
}

// resolve finds the slot a path names. Parents on the way must exist; the
// last step may name an absent item (to be created), and an array index
// may point one past the end only for create.
func (r *run) resolve(path string, op CaseFileOp) (slot, error) {
	parts, bad, ok := parsePath(path)
	if !ok {
		return slot{}, invalidPath(path, bad)
	}
	// The names are checked against the definition first: a wrong name
	// is a wrong path, whatever the case file holds.
	defs := make([]*cmmn.CaseFileItem, len(parts))
	for i, part := range parts {
		var def *cmmn.CaseFileItem
		if i == 0 {
			def = r.topItem(part.name)
		} else {
			def = defs[i-1].Child(part.name)
		}
		if def == nil {
			return slot{}, invalidPath(path, part.text)
		}
		if part.index >= 0 && !def.IsArray() {
			return slot{}, errorf(ErrInvalid, "The path '%s' is invalid because the CaseFileItem is not of type array", path)
		}
		defs[i] = def
	}
	obj := r.c.File
	prefix := ""
	for i, part := range parts {
		def := defs[i]
		s := childSlot(obj, prefix, def)
		last := i == len(parts)-1
		if last && part.index < 0 {
			return s, nil
		}
		list := s.list()
		idx := part.index
		if idx < 0 && def.IsArray() {
			idx = r.current(s.array, list)
		}
		if part.index >= len(list) {
			// As in the reference engine, an index never appends: create
			// on the array's own path does (addendum §4).
			msg := fmt.Sprintf("The array %s has only %d items; cannot access %s", s.array, len(list), path)
			if part.index == len(list) {
				msg += " (Note: index starts at 0 instead of 1)"
			}
			return slot{}, errorf(ErrInvalid, "%s", msg)
		}
		if last {
			return s.element(idx), nil
		}
		var next any
		if def.IsArray() {
			if idx >= 0 && idx < len(list) {
				next = list[idx]
				s = s.element(idx)
			}
		} else {
			next = s.get()
		}
		m, isObj := next.(map[string]any)
		if !isObj {
			return slot{}, errorf(ErrInvalid, "The case file item '%s' cannot be changed, since its parent '%s' does not exist", path, s.path)
		}
		obj, prefix = m, s.path
	}
	return slot{}, errorf(ErrInvalid, "The path '%s' does not name a case file item", path)
}

// current returns the index of an array's current element: the one changed
// last, or else the last one present; -1 when there is none.
func (r *run) current(array string, list []any) int {
	if i, ok := r.c.FileCurrent[array]; ok && i >= 0 && i < len(list) && list[i] != nil {
		return i
	}
	for i := len(list) - 1; i >= 0; i-- {
		if list[i] != nil {
			return i
		}
	}
	return -1
}

func (r *run) setCurrent(array string, i int) {
	if r.c.FileCurrent == nil {
		r.c.FileCurrent = map[string]int{}
	}
	r.c.FileCurrent[array] = i
}

// bindingSlot finds the slot of a parameter's bound item, through the
// current element of arrays on the way. With ensure, missing parents are
// created empty (as the reference engine does when it binds task output
// or case input into a nested item); without, ok is false when a parent is
// missing.
func (r *run) bindingSlot(f *cmmn.CaseFileItem, ensure bool) (s slot, ok bool, err error) {
	var chain []*cmmn.CaseFileItem
	for x := f; x != nil; x = x.Parent() {
		chain = append([]*cmmn.CaseFileItem{x}, chain...)
	}
	obj := r.c.File
	prefix := ""
	for i, def := range chain {
		s = childSlot(obj, prefix, def)
		if i == len(chain)-1 {
			return s, true, nil
		}
		if def.IsArray() {
			idx := r.current(s.array, s.list())
			if idx < 0 {
				if !ensure {
					return slot{}, false, nil
				}
				idx = len(s.list())
				if err := r.fileCreate(s.element(idx), map[string]any{}); err != nil {
					return slot{}, false, err
				}
			}
			s = s.element(idx)
		} else if _, isObj := s.get().(map[string]any); !isObj {
			if !ensure {
				return slot{}, false, nil
			}
			if err := r.fileUpsertEmpty(s); err != nil {
				return slot{}, false, err
			}
		}
		m, _ := s.get().(map[string]any)
		if m == nil {
			return slot{}, false, nil
		}
		obj, prefix = m, s.path
	}
	return slot{}, false, nil
}
