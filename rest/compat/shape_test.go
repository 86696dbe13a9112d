package compat_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// A shape describes a JSON value:
//   - a string names its JSON type: "string", "number", "boolean", "null",
//     "object", "array", "any", or several joined by "|";
//   - obj is an object with exactly these keys (opt marks one that may be
//     absent), each of its shape;
//   - list is an array whose elements all have one shape (n ≥ 0: exactly
//     n of them);
//   - is is exactly that value.
type (
	obj  map[string]any
	opt  struct{ shape any }
	list struct {
		elem any
		n    int
	}
	is struct{ v any }
)

// listOf is an array of any length whose elements have shape elem.
func listOf(elem any) list { return list{elem: elem, n: -1} }

func match(shape, v any, at string) error {
	switch s := shape.(type) {
	case string:
		for _, typ := range strings.Split(s, "|") {
			if typ == "any" || typ == jsonType(v) {
				return nil
			}
		}
		return fmt.Errorf("%s is %s, want %s", at, jsonType(v), s)
	case obj:
		return matchObj(s, v, at, false)
	case openObj:
		return matchObj(s.keys, v, at, true)
	case list:
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s is %s, want an array", at, jsonType(v))
		}
		if s.n >= 0 && len(a) != s.n {
			return fmt.Errorf("%s has %d elements, want %d", at, len(a), s.n)
		}
		for i, e := range a {
			if err := match(s.elem, e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		return nil
	case is:
		want := normalize(s.v)
		if !jsonEqual(v, want) {
			got, _ := json.Marshal(v)
			exp, _ := json.Marshal(want)
			return fmt.Errorf("%s is %s, want %s", at, got, exp)
		}
		return nil
	}
	return fmt.Errorf("bad shape %T at %s", shape, at)
}

func matchObj(s obj, v any, at string, open bool) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s is %s, want an object", at, jsonType(v))
	}
	var extra []string
	for k := range m {
		if _, ok := s[k]; !ok {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 && !open {
		return fmt.Errorf("%s has keys %v the reference engine does not send", at, extra)
	}
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ks := s[k]
		o, optional := ks.(opt)
		if optional {
			ks = o.shape
		}
		kv, present := m[k]
		if !present {
			if optional {
				continue
			}
			return fmt.Errorf("%s lacks key %q", at, k)
		}
		if err := match(ks, kv, at+"."+k); err != nil {
			return err
		}
	}
	return nil
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

// normalize turns a Go value into what encoding/json decodes it to.
func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func jsonEqual(a, b any) bool { return reflect.DeepEqual(normalize(a), normalize(b)) }

// The reference engine's JSON records (reference-engine.md §1).
var (
	tenantUserShape = obj{"userId": "string", "roles": listOf("string"), "tenant": "string", "name": "string",
		"email": "string", "isOwner": "boolean", "enabled": "boolean"}
	platformUserShape = obj{"userId": "string", "tenants": listOf(tenantUserShape), "groups": "array"}
	planItemShape     = obj{"id": "string", "caseInstanceId": "string", "definitionId": "string", "stageId": "string",
		"name": "string", "index": "number", "currentState": "string", "historyState": "string", "isRequired": "boolean",
		"isRepeating": "boolean", "type": "string", "transition": "string", "lastModified": "string",
		"modifiedBy": "string", "user": "string"}
	teamUserShape       = obj{"userId": "string", "origin": "string", "isOwner": "boolean", "caseRoles": listOf("string")}
	teamTenantRoleShape = obj{"tenantRole": "string", "isOwner": "boolean", "caseRoles": listOf("string")}
	teamGroupShape      = obj{"groupId": "string", "mappings": listOf(obj{"groupRole": "string", "isOwner": "boolean", "caseRoles": listOf("string")})}
	teamShape           = obj{"users": listOf(teamUserShape), "groups": listOf(teamGroupShape), "tenantRoles": listOf(teamTenantRoleShape),
		"caseRoles": listOf("string"), "unassignedRoles": listOf("string")}
	caseSummaryShape = caseShape(false)
	fullCaseShape    = caseShape(true)
	// taskShape: taskDuration is null for a task without a due date.
	taskShape = obj{"id": "string", "taskName": "string", "taskState": "string", "assignee": "string", "owner": "string",
		"tenant": "string", "caseInstanceId": "string", "caseName": "string", "role": "string", "lastModified": "string",
		"modifiedBy": "string", "dueDate": "string", "createdOn": "string", "createdBy": "string", "activatedOn": "string",
		"input": "object", "output": "object", "taskModel": "object|string",
		"documentation": "string|object|null", "taskDuration": "string|null"}
	caseTaskShape      = with(taskShape, obj{"mayPerform": "boolean"})
	historyRecordShape = obj{"id": "string", "planItemId": "string", "name": "string", "index": "number", "stageId": "string",
		"caseInstanceId": "string", "currentState": "string", "historyState": "string", "type": "string",
		"transition": "string", "repeating": "boolean", "required": "boolean", "lastModified": "string",
		"modifiedBy": "string", "eventType": "string", "sequenceNr": "number"}
	eventShape = obj{"nr": "number", "offset": "number|string", "type": "string",
		"content": with(obj{"modelEvent": "object"}, nil)}
	documentationShape = obj{"textFormat": "string", "text": "string"}
	identifierShape    = obj{"caseInstanceId": "string", "tenant": "string", "name": "string", "value": "string"}
	emptyObject        = obj{}
)

func caseShape(full bool) obj {
	s := obj{"id": "string", "tenant": "string", "caseName": "string", "definition": "string", "name": "string",
		"state": "string", "failures": "number", "parentCaseId": "string", "rootCaseId": "string", "createdOn": "string",
		"createdBy": "string", "lastModified": "string", "modifiedBy": "string", "caseInput": "string",
		"caseOutput": "string", "planitems": list{elem: "any", n: 0}, "team": list{elem: "any", n: 0}, "file": obj{}}
	if full {
		s["planitems"] = listOf(planItemShape)
		s["team"] = teamShape
		s["file"] = "object"
		s["identifiers"] = listOf(obj{"name": "string", "value": "string"})
	}
	return s
}

// with returns base plus more; a nil more with an object base makes the
// object open: any further key is allowed (the raw events' content).
func with(base, more obj) any {
	if more == nil {
		return openObj{base}
	}
	out := obj{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// openObj is an object with at least these keys.
type openObj struct{ keys obj }
