package rest_test

import (
	"os"
	"testing"
	"time"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// TestRepeatingStageOverREST pins addendum §8, §9 and §18 as clients see
// them: the task JSON carries taskDuration, documentation and activatedOn;
// an assignment inside a stage sees task.stage.index; a repeating
// auto-completing stage ends Completed and its next round brings a fresh,
// newly assigned task.
func TestRepeatingStageOverREST(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		createTenant(t, env, "acme")
		xml, err := os.ReadFile("../engine/testdata/rounds.xml")
		if err != nil {
			t.Fatal(err)
		}
		expect(t, deploy(env, "alice", "rounds.xml", string(xml)), 204, "")
		resp := env.Do(servertest.Request{Method: "POST", Path: "/cases", User: "alice", Body: map[string]any{
			"definition": "rounds", "tenant": "acme", "inputs": map[string]any{"Callers": []any{map[string]any{"Who": "ann"}}}}})
		expect(t, resp, 200, "")
		var started struct{ CaseInstanceID string }
		resp.JSON(t, &started)
		id := started.CaseInstanceID

		type task struct {
			ID            string  `json:"id"`
			TaskName      string  `json:"taskName"`
			TaskState     string  `json:"taskState"`
			Assignee      string  `json:"assignee"`
			ActivatedOn   string  `json:"activatedOn"`
			DueDate       string  `json:"dueDate"`
			TaskDuration  *string `json:"taskDuration"`
			Documentation string  `json:"documentation"`
		}
		tasks := func() map[string][]task {
			var list []task
			env.Do(servertest.Request{Method: "GET", Path: "/tasks/case/" + id, User: "alice"}).JSON(t, &list)
			out := map[string][]task{}
			for _, tk := range list {
				out[tk.TaskName] = append(out[tk.TaskName], tk)
			}
			return out
		}
		all := tasks()
		answer, greet := all["Answer"][0], all["Greet"][0]
		if answer.Assignee != "agent-0" || answer.TaskState != "Assigned" || answer.Documentation != "Answer the caller" ||
			answer.TaskDuration == nil || *answer.TaskDuration != "PT2M" {
			t.Fatalf("answer = %+v", answer)
		}
		activated, err1 := time.Parse(time.RFC3339Nano, answer.ActivatedOn)
		due, err2 := time.Parse(time.RFC3339Nano, answer.DueDate)
		if err1 != nil || err2 != nil || due.Sub(activated) != 2*time.Minute {
			t.Fatalf("activatedOn %q, dueDate %q", answer.ActivatedOn, answer.DueDate)
		}
		if greet.Assignee != "ann" || greet.TaskDuration != nil || greet.Documentation != "Say hello to the last caller" {
			t.Fatalf("greet = %+v", greet)
		}

		expect(t, taskDo(env, "alice", "POST", answer.ID, "complete", map[string]any{"Reply": map[string]any{"Message": "again"}}), 202, "{}")
		c := getCase(t, env, "alice", id)
		var rounds []planItemJSON
		for _, p := range c.PlanItems {
			if p.Name == "Round" {
				rounds = append(rounds, p)
			}
		}
		if len(rounds) != 2 || rounds[0].CurrentState != "Completed" || rounds[1].CurrentState != "Active" || rounds[1].Index != 1 {
			t.Fatalf("rounds = %+v", rounds)
		}
		answers := tasks()["Answer"]
		if len(answers) != 2 || answers[1].ID == answer.ID || answers[1].Assignee != "agent-1" || answers[1].TaskState != "Assigned" {
			t.Fatalf("answers = %+v", answers)
		}
	})
}
