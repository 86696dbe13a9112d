package engine

import (
	"maps"
	"slices"
	"strings"

	"github.com/casegraph/casegraph/engine/cmmn"
)

// The case file operations of §1.7. Create is allowed on an item without
// value; update and replace create an absent item (upsert) and otherwise
// change it; delete needs a value. Each change of an item instance emits
// CaseFileItemTransitioned and tells the sentries listening to the item.

// changeCaseFile runs a case file command.
func (r *run) changeCaseFile(cmd ChangeCaseFile) error {
	switch cmd.Op {
	case FileCreate, FileUpdate, FileReplace, FileDelete:
	default:
		return errorf(ErrInvalid, "'%s' is not a case file operation; use create, update, replace or delete", cmd.Op)
	}
	v, err := normalize(cmd.Value, 0)
	if err != nil {
		return errorf(ErrInvalid, "The case file value is invalid: %v", err)
	}
	if cmd.Path == "" {
		return r.changeWholeFile(cmd.Op, v, cmd.Value)
	}
	s, err := r.resolve(cmd.Path, cmd.Op)
	if err != nil {
		return err
	}
	if cmd.Op != FileDelete {
		// The value as sent is checked: its numbers still tell 5 from 5.0.
		if err := validateSlot(s, cmd.Value); err != nil {
			return err
		}
		v = conformSlot(s, v)
	}
	return r.fileOp(cmd.Op, s, v)
}

// changeWholeFile applies an operation to every top-level item named in
// the value. Create is an upsert here (reference issue #262).
// raw is v as sent, for the type checks.
func (r *run) changeWholeFile(op CaseFileOp, v, raw any) error {
	if op == FileDelete {
		for _, f := range r.def.CaseFile() {
			s := childSlot(r.c.File, "", f)
			if s.get() != nil {
				if err := r.fileDelete(s); err != nil {
					return err
				}
			}
		}
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return errorf(ErrInvalid, "The case file must be a JSON object with the case file items by name")
	}
	rawMap, _ := raw.(map[string]any)
	keys := slices.Sorted(maps.Keys(m))
	for _, k := range keys {
		f := r.topItem(k)
		if f == nil {
			return invalidPath(k, k)
		}
		if err := validateSlot(childSlot(r.c.File, "", f), rawMap[k]); err != nil {
			return err
		}
		m[k] = conformSlot(childSlot(r.c.File, "", f), m[k])
	}
	if op == FileCreate {
		op = FileUpdate
	}
	for _, k := range keys {
		if err := r.fileOp(op, childSlot(r.c.File, "", r.topItem(k)), m[k]); err != nil {
			return err
		}
	}
	return nil
}

// fileOp applies op to the item in s.
func (r *run) fileOp(op CaseFileOp, s slot, v any) error {
	switch op {
	case FileDelete:
		return r.fileDelete(s)
	case FileCreate:
		if s.isWholeArray() {
			return r.appendElements(s, v)
		}
		if s.get() != nil {
			return r.stateError(op, s)
		}
		return r.fileCreate(s, v)
	}
	if s.isWholeArray() {
		return r.arrayWise(op, s, v)
	}
	cur := s.get()
	if cur == nil {
		return r.fileCreate(s, v)
	}
	if op == FileReplace {
		s.set(v)
		r.fileEvent(s, cmmn.FileReplace, v)
		r.replaceChildren(s, cur, v)
		return nil
	}
	return r.fileUpdate(s, cur, v)
}

func (r *run) stateError(op CaseFileOp, s slot) error {
	state := Null
	if s.get() != nil {
		state = Available
	} else if r.c.FileStates[s.path] == Discarded {
		state = Discarded
	}
	name := string(op)
	return stateErrorf("%sCaseFileItem[%s] cannot be done because item is in state %s",
		strings.ToUpper(name[:1])+name[1:], s.path, state)
}

// appendElements adds one element to an array, or one per entry of a list.
func (r *run) appendElements(s slot, v any) error {
	list, isList := v.([]any)
	if !isList {
		list = []any{v}
	}
	for _, e := range list {
		if err := r.fileCreate(s.element(len(s.list())), e); err != nil {
			return err
		}
	}
	return nil
}

// arrayWise updates or replaces a whole array: a list applies element by
// element to the first elements (creating those missing), an object to the
// current element (or a new one).
func (r *run) arrayWise(op CaseFileOp, s slot, v any) error {
	list, isList := v.([]any)
	if !isList {
		i := r.current(s.array, s.list())
		if i < 0 {
			return r.fileCreate(s.element(len(s.list())), v)
		}
		return r.fileOp(op, s.element(i), v)
	}
	for i, e := range list {
		if i > len(s.list()) {
			i = len(s.list())
		}
		if err := r.fileOp(op, s.element(i), e); err != nil {
			return err
		}
	}
	return nil
}

// fileCreate stores v in an empty slot and emits create for the item and
// for every child item the value contains.
func (r *run) fileCreate(s slot, v any) error {
	if s.index < 0 && s.obj == nil {
		return errorf(ErrInvalid, "The case file item '%s' cannot be created, since its parent does not exist", s.path)
	}
	s.set(v)
	r.emitCreated(s, v)
	return nil
}

// fileUpsertEmpty makes an absent parent an empty object, for bindings.
func (r *run) fileUpsertEmpty(s slot) error {
	if s.get() != nil {
		return errorf(ErrInvalid, "The case file item '%s' holds no object, so nothing can be bound inside it", s.path)
	}
	return r.fileCreate(s, map[string]any{})
}

func (r *run) emitCreated(s slot, v any) {
	if v == nil {
		return
	}
	if s.isWholeArray() {
		for i, e := range s.list() {
			if e != nil {
				r.emitCreated(s.element(i), e)
			}
		}
		return
	}
	r.fileEvent(s, cmmn.FileCreate, v)
	m, _ := v.(map[string]any)
	for _, child := range s.def.Children() {
		if m[child.Name()] != nil {
			r.emitCreated(childSlot(m, s.path, child), m[child.Name()])
		}
	}
}

// fileUpdate merges v into the present value cur: properties recursively,
// child items by their own update. Only real changes emit events.
func (r *run) fileUpdate(s slot, cur, v any) error {
	cm, curObj := cur.(map[string]any)
	vm, newObj := v.(map[string]any)
	if !curObj || !newObj {
		if !equalValues(cur, v) {
			s.set(v)
			r.fileEvent(s, cmmn.FileUpdate, v)
		}
		return nil
	}
	keys := slices.Sorted(maps.Keys(vm))
	changed := false
	for _, k := range keys {
		if s.def.Child(k) != nil {
			continue
		}
		if merged, ch := mergeValue(cm[k], vm[k]); ch {
			cm[k] = merged
			changed = true
		}
	}
	if changed {
		r.fileEvent(s, cmmn.FileUpdate, cm)
	}
	for _, k := range keys {
		child := s.def.Child(k)
		if child == nil {
			continue
		}
		cs := childSlot(cm, s.path, child)
		if vm[k] == nil {
			if cs.get() != nil {
				if err := r.fileDelete(cs); err != nil {
					return err
				}
			}
			continue
		}
		if err := r.fileOp(FileUpdate, cs, vm[k]); err != nil {
			return err
		}
	}
	return nil
}

// mergeValue merges a property value: objects key by key, anything else
// replaced. It reports whether anything changed.
func mergeValue(old, v any) (any, bool) {
	om, oldObj := old.(map[string]any)
	vm, newObj := v.(map[string]any)
	if !oldObj || !newObj {
		return v, !equalValues(old, v)
	}
	changed := false
	for _, k := range slices.Sorted(maps.Keys(vm)) {
		if merged, ch := mergeValue(om[k], vm[k]); ch {
			om[k] = merged
			changed = true
		}
	}
	return om, changed
}

// replaceChildren emits, after a replace, what happened to each child
// item: created, deleted, or replaced along with its parent.
func (r *run) replaceChildren(s slot, old, v any) {
	om, _ := old.(map[string]any)
	vm, _ := v.(map[string]any)
	for _, child := range s.def.Children() {
		ov, nv := om[child.Name()], vm[child.Name()]
		cs := childSlot(vm, s.path, child)
		switch {
		case ov == nil && nv == nil:
		case ov == nil:
			r.emitCreated(cs, nv)
		case nv == nil:
			r.emitDeleted(childSlot(om, s.path, child))
		case child.IsArray():
			ol, _ := ov.([]any)
			nl, _ := nv.([]any)
			for i := range max(len(ol), len(nl)) {
				var oe, ne any
				if i < len(ol) {
					oe = ol[i]
				}
				if i < len(nl) {
					ne = nl[i]
				}
				r.replaceEmit(cs.element(i), oe, ne)
			}
		default:
			r.replaceEmit(cs, ov, nv)
		}
	}
}

func (r *run) replaceEmit(s slot, old, v any) {
	switch {
	case old == nil && v == nil:
	case old == nil:
		r.emitCreated(s, v)
	case v == nil:
		r.fileEvent(s, cmmn.FileDelete, nil)
	default:
		r.fileEvent(s, cmmn.FileReplace, v)
		r.replaceChildren(s, old, v)
	}
}

// fileDelete removes an item; an array element becomes null so that the
// positions of the others stay (reference 1.1.14).
func (r *run) fileDelete(s slot) error {
	if s.get() == nil {
		return r.stateError(FileDelete, s)
	}
	r.emitDeleted(s)
	if s.index >= 0 {
		s.set(nil)
	} else {
		delete(s.obj, s.def.Name())
	}
	return nil
}

func (r *run) emitDeleted(s slot) {
	r.fileEvent(s, cmmn.FileDelete, nil)
	prefix := s.path
	if s.isWholeArray() {
		prefix = s.array
	}
	for p := range r.c.FileStates {
		if strings.HasPrefix(p, prefix+"/") || strings.HasPrefix(p, prefix+"[") {
			delete(r.c.FileStates, p)
		}
	}
	if s.isWholeArray() {
		delete(r.c.FileCurrent, s.array)
	}
}

// fileEvent records a transition of the item in s: its state, the event,
// and the notices for the sentries on the item and on its parent.
func (r *run) fileEvent(s slot, ft cmmn.CaseFileTransition, v any) {
	state := Available
	if ft == cmmn.FileDelete {
		state = Discarded
	}
	if r.c.FileStates == nil {
		r.c.FileStates = map[string]State{}
	}
	r.c.FileStates[s.path] = state
	seq := r.emit(CaseFileItemTransitioned{CaseInstanceID: r.c.ID, Path: s.path, Index: s.index,
		Transition: string(ft), State: state, Value: canonical(v)})
	if s.index >= 0 && ft != cmmn.FileDelete {
		r.setCurrent(s.array, s.index)
	}
	r.enqueue(action{kind: fileNotice, seq: seq, file: s.def, ft: ft, array: s.array, index: s.index})
	if parent := s.def.Parent(); parent != nil && (ft == cmmn.FileCreate || ft == cmmn.FileDelete) {
		pt := cmmn.FileAddChild
		if ft == cmmn.FileDelete {
			pt = cmmn.FileRemoveChild
		}
		r.enqueue(action{kind: fileNotice, seq: seq, file: parent, ft: pt, index: -1})
	}
}
