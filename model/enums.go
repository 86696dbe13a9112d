package model

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// The GraphQL enums below hold, in Go, the value the service and engine
// use ("Active", "ManualStart", "casename"); only their GraphQL form is
// SCREAMING_SNAKE_CASE. gqlgen.yml binds each enum of the schema to its
// type here; a test checks that both list the same values.

// enum is the table of one enum type: GraphQL name to Go value.
type enum struct {
	name   string
	values []string // Go values; the GraphQL name is derived unless in names
	names  map[string]string
}

// graphQLName is the SCREAMING_SNAKE_CASE form of a CMMN name:
// ManualStart → MANUAL_START.
func graphQLName(v string) string {
	var b strings.Builder
	for i, r := range v {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

func (e enum) gql(v string) string {
	for name, val := range e.names {
		if val == v {
			return name
		}
	}
	return graphQLName(v)
}

// GraphQLNames lists the enum's values in their GraphQL form.
func (e enum) GraphQLNames() []string {
	out := make([]string, len(e.values))
	for i, v := range e.values {
		out[i] = e.gql(v)
	}
	return out
}

func (e enum) marshal(w io.Writer, v string) {
	_, _ = io.WriteString(w, strconv.Quote(e.gql(v)))
}

// InputError is a value a client sent that no enum of the schema holds;
// the GraphQL door answers it with BAD_USER_INPUT.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// unmarshal reads an enum value as gqlparser validates variables: without
// regard to case, so every value it lets through is one of ours.
func (e enum) unmarshal(in any) (string, error) {
	s, ok := in.(string)
	if !ok {
		return "", &InputError{Msg: fmt.Sprintf("%s must be a string", e.name)}
	}
	for _, v := range e.values {
		if strings.EqualFold(e.gql(v), s) {
			return v, nil
		}
	}
	return "", &InputError{Msg: fmt.Sprintf("%s is not a valid %s; use one of %s", s, e.name, strings.Join(e.GraphQLNames(), ", "))}
}

// Enums are the enum tables by GraphQL type name.
var Enums = map[string]enum{
	"CaseState": {name: "CaseState", values: []string{"Active", "Suspended", "Completed", "Terminated", "Failed", "Closed"}},
	"PlanItemState": {name: "PlanItemState", values: []string{"Available", "Enabled", "Disabled", "Active", "Suspended",
		"Completed", "Terminated", "Failed", "Closed"}},
	"TaskState": {name: "TaskState", values: []string{"Unassigned", "Assigned", "Delegated", "Suspended", "Completed", "Terminated"}},
	"PlanItemType": {name: "PlanItemType", values: []string{"CasePlan", "Stage", "HumanTask", "CaseTask", "ProcessTask",
		"Milestone", "UserEvent", "TimerEvent"}},
	"Transition": {name: "Transition", values: []string{"Create", "Enable", "Disable", "Reenable", "Start", "ManualStart",
		"Suspend", "Resume", "Complete", "Terminate", "Exit", "Fault", "Reactivate", "Occur", "Close",
		"ParentSuspend", "ParentResume", "ParentTerminate"}},
	"CaseSortField": {name: "CaseSortField", values: []string{"id", "casename", "state", "tenant", "failures", "createdon",
		"createdby", "lastmodified", "modifiedby"},
		names: map[string]string{"ID": "id", "CASE_NAME": "casename", "STATE": "state", "TENANT": "tenant", "FAILURES": "failures",
			"CREATED_ON": "createdon", "CREATED_BY": "createdby", "LAST_MODIFIED": "lastmodified", "MODIFIED_BY": "modifiedby"}},
	"TaskSortField": {name: "TaskSortField", values: []string{"taskstate", "assignee", "owner", "duedate", "createdon",
		"createdby", "modifiedby", "lastmodified"},
		names: map[string]string{"TASK_STATE": "taskstate", "ASSIGNEE": "assignee", "OWNER": "owner", "DUE_DATE": "duedate",
			"CREATED_ON": "createdon", "CREATED_BY": "createdby", "MODIFIED_BY": "modifiedby", "LAST_MODIFIED": "lastmodified"}},
	"SortOrder": {name: "SortOrder", values: []string{"asc", "desc"}},
}

// CaseState is the state of a case plan.
type CaseState string

func (e CaseState) MarshalGQL(w io.Writer) { Enums["CaseState"].marshal(w, string(e)) }
func (e *CaseState) UnmarshalGQL(v any) error {
	s, err := Enums["CaseState"].unmarshal(v)
	*e = CaseState(s)
	return err
}

// PlanItemState is the CMMN state of a plan item.
type PlanItemState string

func (e PlanItemState) MarshalGQL(w io.Writer) { Enums["PlanItemState"].marshal(w, string(e)) }
func (e *PlanItemState) UnmarshalGQL(v any) error {
	s, err := Enums["PlanItemState"].unmarshal(v)
	*e = PlanItemState(s)
	return err
}

// TaskState is the workflow state of a human task.
type TaskState string

func (e TaskState) MarshalGQL(w io.Writer) { Enums["TaskState"].marshal(w, string(e)) }
func (e *TaskState) UnmarshalGQL(v any) error {
	s, err := Enums["TaskState"].unmarshal(v)
	*e = TaskState(s)
	return err
}

// PlanItemType is the kind of a plan item.
type PlanItemType string

func (e PlanItemType) MarshalGQL(w io.Writer) { Enums["PlanItemType"].marshal(w, string(e)) }
func (e *PlanItemType) UnmarshalGQL(v any) error {
	s, err := Enums["PlanItemType"].unmarshal(v)
	*e = PlanItemType(s)
	return err
}

// Transition is a CMMN transition of a plan item.
type Transition string

func (e Transition) MarshalGQL(w io.Writer) { Enums["Transition"].marshal(w, string(e)) }
func (e *Transition) UnmarshalGQL(v any) error {
	s, err := Enums["Transition"].unmarshal(v)
	*e = Transition(s)
	return err
}

// CaseSortField is what a case list sorts on.
type CaseSortField string

func (e CaseSortField) MarshalGQL(w io.Writer) { Enums["CaseSortField"].marshal(w, string(e)) }
func (e *CaseSortField) UnmarshalGQL(v any) error {
	s, err := Enums["CaseSortField"].unmarshal(v)
	*e = CaseSortField(s)
	return err
}

// TaskSortField is what a task list sorts on.
type TaskSortField string

func (e TaskSortField) MarshalGQL(w io.Writer) { Enums["TaskSortField"].marshal(w, string(e)) }
func (e *TaskSortField) UnmarshalGQL(v any) error {
	s, err := Enums["TaskSortField"].unmarshal(v)
	*e = TaskSortField(s)
	return err
}

// SortOrder is ascending or descending.
type SortOrder string

func (e SortOrder) MarshalGQL(w io.Writer) { Enums["SortOrder"].marshal(w, string(e)) }
func (e *SortOrder) UnmarshalGQL(v any) error {
	s, err := Enums["SortOrder"].unmarshal(v)
	*e = SortOrder(s)
	return err
}
