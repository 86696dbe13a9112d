package rest

import (
	"encoding/json"
	"reflect"
	"strings"
)

// schema is a JSON Schema (2020-12, as OpenAPI 3.1 uses it).
type schema = map[string]any

// componentNames names, in the OpenAPI document, the Go types the handlers
// encode and decode. Their schemas are derived from the types themselves,
// so the description follows the code.
var componentNames = map[reflect.Type]string{
	reflect.TypeFor[caseSummary]():         "CaseSummary",
	reflect.TypeFor[planItemJSON]():        "PlanItem",
	reflect.TypeFor[teamJSON]():            "CaseTeam",
	reflect.TypeFor[teamUserJSON]():        "CaseTeamUser",
	reflect.TypeFor[teamTenantRoleJSON]():  "CaseTeamTenantRole",
	reflect.TypeFor[teamGroupJSON]():       "CaseTeamGroup",
	reflect.TypeFor[taskJSON]():            "Task",
	reflect.TypeFor[tenantUserJSON]():      "TenantUser",
	reflect.TypeFor[eventJSON]():           "Event",
	reflect.TypeFor[documentationJSON]():   "Documentation",
	reflect.TypeFor[planItemHistoryJSON](): "PlanItemHistoryRecord",
	reflect.TypeFor[userFormat]():          "TenantUserInput",
	reflect.TypeFor[teamUser]():            "CaseTeamUserInput",
	reflect.TypeFor[teamTenantRole]():      "CaseTeamTenantRoleInput",
	reflect.TypeFor[teamGroup]():           "CaseTeamGroupInput",
	reflect.TypeFor[legacyMember]():        "CaseTeamMemberInput",
	reflect.TypeFor[groupFormat]():         "ConsentGroupInput",
	reflect.TypeFor[groupMemberFormat]():   "ConsentGroupMemberInput",
	reflect.TypeFor[groupJSON]():           "ConsentGroup",
	reflect.TypeFor[groupMemberJSON]():     "ConsentGroupMember",
	reflect.TypeFor[userGroupJSON]():       "UserConsentGroup",
}

// schemas collects the component schemas a document refers to.
type schemas struct {
	components map[string]schema
}

func ref(name string) schema { return schema{"$ref": "#/components/schemas/" + name} }

// of returns the schema of Go type t: a reference for a named component,
// the schema inline otherwise.
func (s *schemas) of(t reflect.Type) schema {
	if name, ok := componentNames[t]; ok {
		if _, done := s.components[name]; !done {
			s.components[name] = schema{} // against recursion
			s.components[name] = s.inline(t)
		}
		return ref(name)
	}
	return s.inline(t)
}

func (s *schemas) inline(t reflect.Type) schema {
	if t == reflect.TypeFor[json.RawMessage]() {
		return schema{"description": "any JSON value"}
	}
	if t == reflect.TypeFor[teamFormat]() {
		return ref("CaseTeamInput")
	}
	switch t.Kind() {
	case reflect.Pointer:
		return nullableOf(s.of(t.Elem()))
	case reflect.String:
		return schema{"type": "string"}
	case reflect.Bool:
		return schema{"type": "boolean"}
	case reflect.Int, reflect.Int32, reflect.Int64:
		return schema{"type": "integer"}
	case reflect.Float64:
		return schema{"type": "number"}
	case reflect.Slice:
		return schema{"type": "array", "items": s.of(t.Elem())}
	case reflect.Map:
		return schema{"type": "object", "additionalProperties": s.of(t.Elem())}
	case reflect.Interface:
		return schema{"description": "any JSON value"}
	case reflect.Struct:
		if v, ok := nullableValueType(t); ok {
			return nullableOf(s.of(v))
		}
		return s.object(t)
	}
	return schema{}
}

// nullableValueType recognises nullable[T], a field that may be absent,
// null or a T.
func nullableValueType(t reflect.Type) (reflect.Type, bool) {
	if !strings.HasPrefix(t.Name(), "nullable[") {
		return nil, false
	}
	f, ok := t.FieldByName("Value")
	return f.Type, ok
}

func nullableOf(in schema) schema {
	if typ, ok := in["type"].(string); ok && len(in) <= 2 {
		out := schema{}
		for k, v := range in {
			out[k] = v
		}
		out["type"] = []string{typ, "null"}
		return out
	}
	return schema{"oneOf": []any{in, schema{"type": "null"}}}
}

// object describes a struct by its JSON fields; embedded structs add their
// fields. Response fields are always written, so they are required unless
// omitempty; request fields are all optional, as the decoder treats them.
func (s *schemas) object(t reflect.Type) schema {
	props := schema{}
	var required []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if f.Anonymous && tag == "" {
				walk(f.Type)
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name == "-" || name == "" || !f.IsExported() {
				continue
			}
			props[name] = s.of(f.Type)
			if !strings.Contains(opts, "omitempty") {
				required = append(required, name)
			}
		}
	}
	walk(t)
	out := schema{"type": "object", "properties": props}
	if len(required) > 0 && !isRequestType(t) {
		out["required"] = required
	}
	return out
}

// isRequestType tells the types read from request bodies, whose fields
// may all be left out.
func isRequestType(t reflect.Type) bool {
	switch t {
	case reflect.TypeFor[userFormat](), reflect.TypeFor[teamUser](), reflect.TypeFor[teamTenantRole](),
		reflect.TypeFor[teamGroup](), reflect.TypeFor[teamMapping](), reflect.TypeFor[legacyMember](), reflect.TypeFor[groupFormat](), reflect.TypeFor[groupMemberFormat]():
		return true
	}
	return false
}

// obj builds an object schema from property name and schema pairs, all
// required (responses) or none (requests, with required false).
func obj(required bool, kv ...any) schema {
	props := schema{}
	var names []string
	for i := 0; i+1 < len(kv); i += 2 {
		props[kv[i].(string)] = kv[i+1]
		names = append(names, kv[i].(string))
	}
	out := schema{"type": "object", "properties": props}
	if required && len(names) > 0 {
		out["required"] = names
	}
	return out
}

func str(description string) schema {
	if description == "" {
		return schema{"type": "string"}
	}
	return schema{"type": "string", "description": description}
}

func arrayOf(items schema) schema { return schema{"type": "array", "items": items} }

func stringList() schema { return arrayOf(schema{"type": "string"}) }
func anyObject() schema {
	return schema{"type": "object", "description": "a JSON object", "additionalProperties": true}
}
func emptyObject() schema {
	return schema{"type": "object", "description": "always {}", "maxProperties": 0}
}
