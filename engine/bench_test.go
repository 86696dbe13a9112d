package engine

import (
	"testing"
)

func BenchmarkStartCase(b *testing.B) {
	def := model(b, "greeting")
	env := Env{Now: t0}
	team := Team{Members: []Member{{ID: "alice", Type: UserMember, IsOwner: true}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Start(def, StartCase{ID: "case-1", Inputs: greeting, Team: team}, alice, env); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTransition completes the first task of a fresh greeting case:
// output validated and mapped, the next task started by its sentry.
func BenchmarkTransition(b *testing.B) {
	def := model(b, "greeting")
	env := Env{Now: t0}
	team := Team{Members: []Member{{ID: "alice", Type: UserMember, IsOwner: true}}}
	output := map[string]any{"Answer": map[string]any{"Text": "Hi", "Pleased": true}}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		c, _, err := Start(def, StartCase{ID: "case-1", Inputs: greeting, Team: team}, alice, env)
		if err != nil {
			b.Fatal(err)
		}
		id := c.PlanItems[1].ID
		b.StartTimer()
		if _, err := Execute(def, c, CompleteHumanTask{PlanItemID: id, Output: output}, bob, env); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSuspendReactivate suspends and reactivates the whole case,
// which passes through every plan item.
func BenchmarkSuspendReactivate(b *testing.B) {
	def := model(b, "greeting")
	env := Env{Now: t0}
	c, _, err := Start(def, StartCase{ID: "case-1", Inputs: greeting}, alice, env)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range []Transition{Suspend, Reactivate} {
			if _, err := Execute(def, c, MakeTransition{PlanItem: "case-1", Transition: t}, alice, env); err != nil {
				b.Fatal(err)
			}
		}
	}
}
