package rest_test

import (
	"encoding/json"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// subCaseJSON is what these tests read of a case: its tree links too.
type subCaseJSON struct {
	caseJSON
	ParentCaseID string `json:"parentCaseId"`
	RootCaseID   string `json:"rootCaseId"`
}

func getSubCase(t *testing.T, env *servertest.Env, user, id string) subCaseJSON {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: user})
	expect(t, resp, 200, "")
	var c subCaseJSON
	resp.JSON(t, &c)
	return c
}

// startClaim starts a claim (testdata/cases/subcases.xml) with alice as
// owner and Handler and bob as Manager.
func startClaim(t *testing.T, env *servertest.Env) string {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice", Body: map[string]any{
		"definition": "subcases", "tenant": "acme",
		"inputs": map[string]any{"Claim": map[string]any{"item": "bike", "amount": 300}},
		"caseTeam": map[string]any{"users": []map[string]any{
			{"userId": "alice", "isOwner": true, "caseRoles": []string{"Handler", "Manager"}},
			{"userId": "bob", "caseRoles": []string{"Manager"}},
		}},
	}})
	expect(t, resp, 200, "")
	var started struct{ CaseInstanceID string }
	resp.JSON(t, &started)
	return started.CaseInstanceID
}

func caseTreeTasks(t *testing.T, env *servertest.Env, user, id string) []taskJSON {
	t.Helper()
	resp := env.Do(servertest.Request{Method: "GET", Path: "/tasks/case/" + id + "?includeSubCaseTasks=true", User: user})
	expect(t, resp, 200, "")
	var tasks []taskJSON
	resp.JSON(t, &tasks)
	return tasks
}

func TestSubCasesOverREST(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		expect(t, deploy(env, "alice", "subcases.xml", readModel(t, "subcases.xml")), 204, "")
		claim := startClaim(t, env)

		c := getSubCase(t, env, "bob", claim)
		if c.ParentCaseID != "" || c.RootCaseID != claim || c.State != "Active" {
			t.Fatalf("claim: parent %q root %q state %s", c.ParentCaseID, c.RootCaseID, c.State)
		}
		assessItem := itemByName(t, c.caseJSON, "Assess")
		if assessItem.Type != "CaseTask" || assessItem.CurrentState != "Active" || itemByName(t, c.caseJSON, "Notify").CurrentState != "Completed" {
			t.Fatalf("claim plan items: %+v", c.PlanItems)
		}
		// The sub case lives at the case task's plan item id.
		assess := getSubCase(t, env, "bob", assessItem.ID)
		if assess.ParentCaseID != claim || assess.RootCaseID != claim || assess.CaseName != "Assess" || assess.Tenant != "acme" {
			t.Fatalf("assessment: %+v", assess)
		}
		if got := assess.File["Claim"]; got == nil {
			t.Errorf("assessment file = %v", assess.File)
		}
		roles := map[string][]string{}
		for _, u := range assess.Team.Users {
			roles[u.UserID] = u.CaseRoles
		}
		if len(roles) != 2 || len(roles["alice"]) != 1 || roles["alice"][0] != "Handler" || len(roles["bob"]) != 0 {
			t.Errorf("derived team roles = %v, want alice Handler and bob none (Manager is not a role of Assess)", roles)
		}
		inspect := getSubCase(t, env, "alice", itemByName(t, assess.caseJSON, "Inspect").ID)
		if inspect.ParentCaseID != assess.ID || inspect.RootCaseID != claim {
			t.Fatalf("inspection: parent %q root %q", inspect.ParentCaseID, inspect.RootCaseID)
		}
		notify := itemByName(t, c.caseJSON, "Notify").ID

		// Lists show the tree links too.
		resp := env.Do(servertest.Request{Method: "GET", Path: "/cases?tenant=acme", User: "alice"})
		expect(t, resp, 200, "")
		var list []struct{ ID, ParentCaseID, RootCaseID string }
		resp.JSON(t, &list)
		parents := map[string]string{}
		for _, r := range list {
			parents[r.ID] = r.ParentCaseID
			if r.RootCaseID != claim {
				t.Errorf("case %s has root %q", r.ID, r.RootCaseID)
			}
		}
		if len(list) != 4 || parents[claim] != "" || parents[assess.ID] != claim || parents[inspect.ID] != assess.ID || parents[notify] != claim {
			t.Errorf("case list parents = %v", parents)
		}

		// The claim has no tasks of its own; its tree has two now.
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tasks/case/" + claim, User: "alice"}), 200, "[]")
		if got := taskNames(caseTreeTasks(t, env, "bob", claim)); len(got) != 2 || got[0] != "Look at item" || got[1] != "Read notice" {
			t.Errorf("bob's tree tasks = %v", got)
		}
		// Leaving a sub case's team takes its tasks out of the tree list.
		expect(t, env.Do(servertest.Request{Method: "DELETE", Path: "/cases/" + notify + "/caseteam/users/bob", User: "alice"}), 200, "")
		if got := taskNames(caseTreeTasks(t, env, "bob", claim)); len(got) != 1 || got[0] != "Look at item" {
			t.Errorf("bob's tree tasks after leaving Notify = %v", got)
		}
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + notify, User: "bob"}), 404, "")
		// Sub cases alone do not open the requested case.
		expect(t, env.Do(servertest.Request{Method: "DELETE", Path: "/cases/" + claim + "/caseteam/users/bob", User: "alice"}), 200, "")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/tasks/case/" + claim + "?includeSubCaseTasks=true", User: "bob"}),
			404, "A case with id '"+claim+"' cannot be found.")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + assess.ID, User: "bob"}), 200, "")

		// The inspection's report flows up through the assessment into
		// the claim, which completes.
		look := taskNamed(t, env, "alice", inspect.ID, "Look at item")
		expect(t, taskDo(env, "alice", "POST", look.ID, "complete", map[string]any{"Report": map[string]any{"inspector": "ian"}}), 202, "{}")
		if got := getSubCase(t, env, "alice", inspect.ID).State; got != "Completed" {
			t.Errorf("inspection is %s", got)
		}
		decide := taskNamed(t, env, "alice", assess.ID, "Decide")
		expect(t, taskDo(env, "alice", "POST", decide.ID, "complete", map[string]any{"Report": map[string]any{"verdict": "pay"}}), 202, "{}")
		done := getSubCase(t, env, "alice", claim)
		if done.State != "Completed" || itemByName(t, done.caseJSON, "Assess").CurrentState != "Completed" {
			t.Fatalf("claim after the assessment: %s, %+v", done.State, done.PlanItems)
		}
		if b, _ := json.Marshal(done.File["Report"]); string(b) != `{"inspector":"ian","verdict":"pay"}` {
			t.Errorf("claim Report = %s", b)
		}
	})
}

func TestCaseTaskTransitionsReachSubCaseOverREST(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		expect(t, deploy(env, "alice", "subcases.xml", readModel(t, "subcases.xml")), 204, "")
		claim := startClaim(t, env)
		assess := itemByName(t, getCase(t, env, "alice", claim), "Assess").ID
		inspect := itemByName(t, getCase(t, env, "alice", assess), "Inspect").ID

		expect(t, transition(env, "alice", claim, assess, "suspend"), 200, "{}")
		if got := getCase(t, env, "alice", inspect).State; got != "Suspended" {
			t.Errorf("inspection after suspending Assess is %s", got)
		}
		expect(t, transition(env, "alice", claim, assess, "resume"), 200, "{}")
		if got := getCase(t, env, "alice", inspect).State; got != "Active" {
			t.Errorf("inspection after resuming Assess is %s", got)
		}
		// A fault in the sub case fails the task; reactivating the task
		// brings both back.
		expect(t, transition(env, "alice", assess, assess, "fault"), 200, "{}")
		c := getCase(t, env, "alice", claim)
		if got := itemByName(t, c, "Assess").CurrentState; got != "Failed" {
			t.Errorf("Assess after its sub case failed is %s", got)
		}
		expect(t, transition(env, "alice", claim, assess, "reactivate"), 200, "{}")
		if got := getCase(t, env, "alice", assess).State; got != "Active" {
			t.Errorf("assessment after reactivating Assess is %s", got)
		}
		expect(t, transition(env, "alice", claim, assess, "terminate"), 200, "{}")
		for _, id := range []string{assess, inspect} {
			if got := getCase(t, env, "alice", id).State; got != "Terminated" {
				t.Errorf("case %s after terminating Assess is %s", id, got)
			}
		}
		// Sub cases are archived with their root, never alone.
		expect(t, env.Do(servertest.Request{Method: "DELETE", Path: "/storage/case/" + assess, User: "alice"}), 400,
			"Case '"+assess+"' is a sub case: archive or delete its root case '"+claim+"'")
		expect(t, env.Do(servertest.Request{Method: "DELETE", Path: "/storage/case/" + claim, User: "alice"}), 202, "")
		for _, id := range []string{claim, assess, inspect} {
			expect(t, env.Do(servertest.Request{Method: "GET", Path: "/cases/" + id, User: "alice"}), 404, "")
		}
	})
}

// TestDeployRefusesUnrunnableProcessTask: a model whose process task asks
// for an implementation CaseGraph does not run is refused at deploy,
// naming the task and the class; the reference's four classes deploy.
func TestDeployRefusesUnrunnableProcessTask(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		model := func(class string) string {
			return `<definitions xmlns="http://www.omg.org/spec/CMMN/20151109/MODEL" xmlns:cafienne="org.cafienne">
				<case id="impl.case" name="Impl"><casePlanModel id="cp" name="Impl">
				<planItem id="pi_a" name="Score" definitionRef="pt_a"/>
				<processTask id="pt_a" name="Score" processRef="p_a"/></casePlanModel></case>
				<process id="p_a" name="Scorer"><extensionElements><cafienne:implementation class="` + class + `"/></extensionElements></process>
				</definitions>`
		}
		resp := deploy(env, "alice", "impl.xml", model("com.example.Scorer"))
		expect(t, resp, 400, "Cannot deploy impl.xml: definition is invalid.\nimpl.case: ProcessTask 'Score' runs process 'Scorer' with implementation class "+
			"com.example.Scorer, which CaseGraph does not run; it runs HTTPCallDefinition, CalculationDefinition, MailDefinition and PDFReportDefinition")
		expect(t, env.Do(servertest.Request{Method: "GET", Path: "/repository/load/impl.xml?tenant=acme", User: "alice"}), 404, "")
		for _, class := range []string{"http.HTTPCallDefinition", "calculation.CalculationDefinition", "mail.MailDefinition", "report.PDFReportDefinition"} {
			expect(t, deploy(env, "alice", "impl.xml", model("org.cafienne.processtask.implementation."+class)), 204, "")
		}
	})
}
