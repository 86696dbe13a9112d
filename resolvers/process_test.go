package resolvers_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/graph/client"
)

func processItem(t *testing.T, c client.CaseProcessesCase, name string) client.CaseProcessesCasePlanItemsPlanItem {
	t.Helper()
	for _, p := range c.PlanItems {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no plan item %q in case %s", name, c.Id)
	return client.CaseProcessesCasePlanItemsPlanItem{}
}

func caseProcesses(t *testing.T, env *servertest.Env, id string) client.CaseProcessesCase {
	t.Helper()
	resp, err := client.CaseProcesses(ctx, env.GraphQL("alice"), id)
	if err != nil || resp.Case == nil {
		t.Fatalf("case %s: %v", id, err)
	}
	return *resp.Case
}

// TestProcessTasksOverGraphQL runs the permit fee model (an HTTP call, a
// calculation, a case task whose sub case runs a calculation) to its end,
// through a failure of the call and its reactivation.
func TestProcessTasksOverGraphQL(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		var status atomic.Int32
		status.Store(503)
		reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(int(status.Load()))
			_, _ = w.Write([]byte(`{"rate": 2}`))
		}))
		defer reg.Close()
		createTenant(t, env, "acme")
		b, err := os.ReadFile("../testdata/cases/permitfee.xml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := client.DeployDefinition(ctx, env.GraphQL("alice"), ptr("acme"), "permitfee", string(b)); err != nil {
			t.Fatal(err)
		}
		inputs := json.RawMessage(`{"Request":{"registry":"` + reg.URL + `","applicant":"ann","area":100}}`)
		started, err := client.StartCase(ctx, env.GraphQL("alice"), client.StartCaseInput{Definition: "permitfee", Tenant: ptr("acme"), Inputs: &inputs,
			Team: []client.CaseTeamMemberInput{{MemberId: "alice", IsOwner: ptr(true)}}})
		if err != nil {
			t.Fatal(err)
		}
		id := started.StartCase.Id
		lookup := processItem(t, caseProcesses(t, env, id), "Lookup")
		if o := lookup.ProcessOutcome; o == nil || !o.Waiting || o.Calls != 1 || o.StatusCode != nil || o.FailureReason != nil {
			t.Fatalf("before the call: %+v", o)
		}
		if o := processItem(t, caseProcesses(t, env, id), "ComputeFee").ProcessOutcome; o != nil {
			t.Fatalf("a task that did not start has an outcome: %+v", o)
		}
		runCalls(t, env, 1)
		lookup = processItem(t, caseProcesses(t, env, id), "Lookup")
		o := lookup.ProcessOutcome
		if lookup.State != client.PlanItemStateFailed || o == nil || o.Waiting || o.StatusCode == nil || *o.StatusCode != 503 ||
			o.FailureReason == nil || !strings.Contains(*o.FailureReason, "answered 503 Service Unavailable") {
			t.Fatalf("after a 503: %s %+v", lookup.State, o)
		}
		status.Store(200)
		if _, err := client.MakePlanItemTransition(ctx, env.GraphQL("alice"), id, lookup.Id, client.TransitionReactivate); err != nil {
			t.Fatal(err)
		}
		runCalls(t, env, 1)
		c := caseProcesses(t, env, id)
		lookup = processItem(t, c, "Lookup")
		if o := lookup.ProcessOutcome; c.State != client.CaseStateCompleted || o.Calls != 2 || o.Waiting || *o.StatusCode != 200 || o.FailureReason != nil {
			t.Fatalf("after the retry: case %s, Lookup %+v", c.State, o)
		}
		var file map[string]any
		if err := json.Unmarshal(c.CaseFile, &file); err != nil {
			t.Fatal(err)
		}
		// 100 * 2, nothing urgent; 200 < 1000 is approved.
		if file["Fee"] != float64(200) || file["Approved"] != true {
			t.Fatalf("case file = %v", file)
		}
		if o := processItem(t, c, "ComputeFee").ProcessOutcome; o == nil || o.Calls != 0 || o.Waiting || o.FailureReason != nil {
			t.Fatalf("calculation outcome = %+v", o)
		}
	})
}

func runCalls(t *testing.T, env *servertest.Env, want int) {
	t.Helper()
	n, err := env.Server.Service().RunDueCalls(ctx)
	if err != nil || n != want {
		t.Fatalf("RunDueCalls = %d, %v; want %d", n, err, want)
	}
}
