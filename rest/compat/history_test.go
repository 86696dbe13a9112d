package compat_test

import (
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"testing"
)

func TestHistory(t *testing.T) {
	notFound := "A case with id '{case}' cannot be found."
	record := func(name, state, transition string) any {
		return with(historyRecordShape, obj{"name": is{name}, "currentState": is{state}, "transition": is{transition}})
	}
	forEachDB(t, []row{
		// §1.10
		{caller: caseMember, method: "GET", path: "/cases/{case}/history/events", status: 200, json: listOf(eventShape)},
		{caller: nonMember, method: "GET", path: "/cases/{case}/history/events", status: 404, text: notFound},
		{caller: caseMember, method: "GET", path: "/cases/{case}/history/planitems", status: 200, json: list{elem: listOf(historyRecordShape), n: 9}},
		{caller: nonMember, method: "GET", path: "/cases/{case}/history/planitems", status: 404, text: notFound},
		{caller: caseMember, method: "GET", path: "/cases/{case}/history/planitems/{pi:Review}", status: 200, json: listOf(historyRecordShape)},
		{name: "an active human task has 5 entries", caller: caseMember, method: "GET", path: "/cases/{case}/history/planitems/{pi:Review}", status: 200,
			json: list{elem: historyRecordShape, n: 5}},
		{name: "an available item has 4 entries", caller: caseMember, method: "GET", path: "/cases/{case}/history/planitems/{pi:Approve}", status: 200,
			json: list{elem: historyRecordShape, n: 4}},
		{name: "one more per transition", caller: caseMember, method: "GET", path: "/cases/{case}/history/planitems/{pi:Open}", status: 200, fresh: true,
			before: transition(caseMember, "{pi:Open}", "complete"), json: list{elem: historyRecordShape, n: 6}},
		{name: "the last entry", caller: caseMember, method: "GET", path: "/cases/{case}/history/planitems/{pi:Open}", status: 200, fresh: true,
			before: transition(caseMember, "{pi:Open}", "complete"),
			after: func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
				var recs []map[string]any
				resp.JSON(t, &recs)
				if err := match(record("Open", "Completed", "Complete"), recs[len(recs)-1], "$[last]"); err != nil {
					t.Error(err)
				}
			}, json: listOf(historyRecordShape)},
		{caller: caseMember, method: "GET", path: "/cases/{case}/history/planitems/nosuch", status: 404, text: "A plan item with id 'nosuch' cannot be found."},
		{caller: nonMember, method: "GET", path: "/cases/{case}/history/planitems/{pi:Review}", status: 404, text: notFound},

		{caller: caseMember, method: "GET", path: "/cases/{case}/documentation/planitems/{pi:Review}", status: 200, json: documentationShape,
			exact: `{"textFormat":"text/plain","text":"Check the order"}`},
		{name: "undocumented", caller: caseMember, method: "GET", path: "/cases/{case}/documentation/planitems/{pi:Open}", status: 200, exact: `null`},
		{caller: nonMember, method: "GET", path: "/cases/{case}/documentation/planitems/{pi:Review}", status: 404, text: notFound},

		// §1.15 and addendum §16: the raw events.
		{caller: caseMember, method: "GET", path: "/debug/{case}", status: 200, json: listOf(eventShape)},
		{caller: caseMember, method: "GET", path: "/debug/{case}?from=0&to=3", status: 200, json: list{elem: eventShape, n: 3}},
		{name: "the reference's entries", caller: caseMember, method: "GET", path: "/debug/{case}?from=0&to=1", status: 200,
			json: list{elem: obj{"nr": "number", "offset": "string", "type": "string", "content": with(obj{"modelEvent": obj{
				"actor": "string", "actorId": "string", "correlationId": "string", "tenant": "string", "timestamp": "string",
				"user": obj{"userId": "string", "origin": "string", "tenantRoles": "array", "groups": "array"}}}, nil)}, n: 1},
			after: func(t *testing.T, f *fixture, c *caseRef, resp *servertest.Response) {
				var entries []struct {
					Content struct{ ModelEvent struct{ Actor string } }
				}
				resp.JSON(t, &entries)
				if got := entries[0].Content.ModelEvent.Actor; got != "Case["+c.id+"]" {
					t.Errorf("modelEvent.actor = %q, want Case[%s]", got, c.id)
				}
			}},
		// The reference shows the events to every user of the case's tenant;
		// CaseGraph, deliberately (service.DebugEvents), to the team only.
		{caller: nonMember, method: "GET", path: "/debug/{case}", status: 404, text: notFound},
		{caller: tenantUser, method: "GET", path: "/debug/{case}", status: 404, text: notFound},
	})
}
