package compat_test

import (
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
)

// TestForceRecovery: PATCH /debug/force-recovery/{caseId} (§1.15) is 404
// unless configured; configured, 200 `Forced recovery of X` for the case's
// team, and no new event.
func TestForceRecovery(t *testing.T) {
	notFound := "A case with id '{case}' cannot be found."
	t.Run("off", func(t *testing.T) {
		forEachDB(t, []row{
			{caller: caseOwner, method: "PATCH", path: "/debug/force-recovery/{case}", status: 404,
				text: "The requested resource could not be found but may be available again in the future."},
		})
	})
	noNewEvent := func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
		var events []any
		f.as(t, caseMember, "GET", "/debug/{case}", nil, c).JSON(t, &events)
		var again []any
		mustStatus(t, f.as(t, caseOwner, "PATCH", "/debug/force-recovery/{case}", nil, c), 200)
		f.as(t, caseMember, "GET", "/debug/{case}", nil, c).JSON(t, &again)
		if len(again) != len(events) {
			t.Errorf("%d events after a recovery, %d before", len(again), len(events))
		}
	}
	t.Run("on", func(t *testing.T) {
		servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
			newFixture(t, env).run(t, []row{
				{caller: caseMember, method: "PATCH", path: "/debug/force-recovery/{case}", status: 200, text: "Forced recovery of {case}", after: noNewEvent},
				{caller: tenantOwner, method: "PATCH", path: "/debug/force-recovery/{case}", status: 404, text: notFound},
				{caller: nonMember, method: "PATCH", path: "/debug/force-recovery/{case}", status: 404, text: notFound},
				{caller: noToken, method: "PATCH", path: "/debug/force-recovery/{case}", status: 401, text: "Authorization token is missing"},
			})
		}, func(c *server.Config) { c.ForceRecovery = true })
	})
}
