package resolvers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
	"github.com/casegraph/casegraph/graph/client"
)

// liveBound is how soon after the person who acted sees the answer of a
// change the other person, on the other replica, must see it too. The
// figures logged (and written to the artifacts) run from the click; the
// bound runs from the acting tab's own answer, so that a machine too busy
// to run the command itself quickly (CI runs many suites at once) does not
// fail what this test proves: the change reaches the other replica's tab as
// soon as it is made. actionBound is the sanity limit from the click.
const (
	liveBound   = time.Second
	actionBound = 10 * time.Second
)

// tab is one browser tab of the test: a person on one replica.
type tab struct {
	t    *testing.T
	name string
	ctx  context.Context
}

// until waits for a JavaScript condition and says which step it was
// waiting for, with the page's text, when it times out.
func (b *tab) until(step, expr string) {
	b.t.Helper()
	wctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(wctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		page, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body.innerText`))
		b.t.Fatalf("%s, %s: %v\npage text:\n%s", b.name, step, err, page)
	}
}

func (b *tab) run(step string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatalf("%s, %s: %v", b.name, step, err)
	}
}

func evalIn[T any](b *tab, step, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("%s, %s: %v", b.name, step, err)
	}
	return v
}

// watch starts recording, in the page, the moment cond first holds after
// a DOM change: the tab's own clock stamps it, not the test's polling. A
// cond that holds already fails the test, so each figure measures a change.
func (b *tab) watch(key, cond string) {
	b.t.Helper()
	js := fmt.Sprintf(`(() => {
  const key = %q, cond = () => (%s);
  window.seenAt = window.seenAt || {};
  delete window.seenAt[key];
  if (cond()) return true;
  const obs = new MutationObserver(() => {
    if (!(key in window.seenAt) && cond()) { window.seenAt[key] = performance.timeOrigin + performance.now(); obs.disconnect(); }
  });
  obs.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  return false;
})()`, key, cond)
	if already := evalIn[bool](b, "watch "+key, js); already {
		b.t.Fatalf("%s: %q holds before the change it should see", b.name, key)
	}
}

// seen waits until the watch of key saw its condition and returns when
// (Unix milliseconds).
func (b *tab) seen(key string) float64 {
	b.t.Helper()
	b.until("sees "+key, fmt.Sprintf(`window.seenAt && (%q in window.seenAt)`, key))
	return evalIn[float64](b, "read "+key, fmt.Sprintf(`window.seenAt[%q]`, key))
}

// clickedAt is when the tab's last click landed (Unix milliseconds).
func (b *tab) clickedAt() float64 {
	b.t.Helper()
	return evalIn[float64](b, "read the click time", `window.clickedAt`)
}

func (b *tab) screenshot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("%s, screenshot: %v", b.name, err)
	}
	saveArtifact(b.t, name, png)
}

// saveArtifact writes a file where the browser tests leave screenshots.
func saveArtifact(t *testing.T, name string, data []byte) {
	t.Helper()
	dir := filepath.Join("testdata", "artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path, _ := filepath.Abs(filepath.Join(dir, name))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("artifact: %s", path)
}

// devSignIn signs in with the development picker by keyboard alone:
// type-ahead on the list picks the user, Tab reaches the button, Enter
// submits.
func (b *tab) devSignIn(user string) {
	b.t.Helper()
	b.until("the development picker", `document.body.dataset.devSignIn === "on" && !document.getElementById("devsignin").hidden && `+
		`document.querySelectorAll("#dev-user option").length > 0`)
	b.run("pick "+user, chromedp.Focus(chromedp.CSS(`#dev-user`)), chromedp.KeyEvent(user))
	b.until(user+" is picked", fmt.Sprintf(`document.activeElement.id === "dev-user" && `+
		`document.getElementById("dev-user").selectedOptions[0].textContent.startsWith(%q)`, user+" "))
	b.run("to the button", chromedp.KeyEvent(kb.Tab))
	b.until("the button has focus", `document.activeElement === document.querySelector("#devsignin button[type=submit]")`)
	b.run("sign in", chromedp.KeyEvent(kb.Enter))
	b.until("signed in and live", fmt.Sprintf(`document.getElementById("who").innerText === %q && `, user)+
		`document.getElementById("live").innerText === "live" && !document.getElementById("app").hidden && `+
		`document.getElementById("devsignin").hidden && document.getElementById("open").innerText.includes("No unassigned tasks")`)
	// A reload would drop the marker; clicks are stamped by the page's clock.
	evalIn[bool](b, "mark the page", `window.noReload = true; document.addEventListener("click", () => { `+
		`window.clickedAt = performance.timeOrigin + performance.now(); }, true); true`)
}

// click clicks the element xpath finds. A live event may re-render the
// list between finding the element and clicking it (the browser answers
// "Could not find node with given id"): the click is then tried again on
// the element found afresh, as a person would click the redrawn row.
func (b *tab) click(step, xpath string) {
	b.t.Helper()
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = chromedp.Do(b.ctx, chromedp.Click(chromedp.Search(xpath))); err == nil ||
			!strings.Contains(err.Error(), "Could not find node") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		b.t.Fatalf("%s, %s: %v", b.name, step, err)
	}
}

// selectTask clicks the task named name in list (open or mine).
func (b *tab) selectTask(list, name string) {
	b.t.Helper()
	b.click("select "+name, fmt.Sprintf(`//ul[@id=%q]//button[div[1][text()=%q]]`, list, name))
	b.until(name+" is shown", fmt.Sprintf(`document.getElementById("detail-title").innerText === %q`, name))
}

// typeInto replaces the text of a form field by typing.
func (b *tab) typeInto(id, text string) {
	b.t.Helper()
	b.run("focus "+id, chromedp.Focus(chromedp.CSS("#"+id)))
	evalIn[bool](b, "select the text of "+id, fmt.Sprintf(`document.getElementById(%q).select(); true`, id))
	b.run("type into "+id, chromedp.KeyEvent(text))
	b.until(id+" holds the text", fmt.Sprintf(`document.getElementById(%q).value === %q`, id, text))
}

func (b *tab) button(text string) {
	b.t.Helper()
	b.click("press "+text, fmt.Sprintf(`//div[@id="detail"]//button[text()=%q]`, text))
}

// TestInboxTwoTabsTwoReplicas: alice and bob, who both hold the roles of
// the incident's tasks, each sign in with the development picker in a tab
// of their own on a replica of their own (bob on a phone-sized screen),
// both replicas on one PostgreSQL database. What one does shows in the
// other's tab within a second, timed in the pages from the click to the
// DOM change: a case started by API, alice's claim and completion of
// Triage, then bob's claim and completion of Fix. Without the database's
// notifications nothing crosses and the test fails.
func TestInboxTwoTabsTwoReplicas(t *testing.T) {
	bin := chromium(t)
	if dbtest.DatabaseURL() == "none" {
		t.Skip("needs PostgreSQL: the two replicas share one database")
	}
	dataDir := t.TempDir()
	// Development mode with one data dir: both replicas trust its key.
	dev := func(c *server.Config) { c.Dev, c.DataDir = true, dataDir }
	envA := servertest.Start(t, db.Postgres, dev)
	envB := servertest.Start(t, db.Postgres, dev, func(c *server.Config) { c.DatabaseURL = envA.DatabaseURL })
	deployIncident(t, envA)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.WindowSize(1200, 800))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctxA, cancelA := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	defer cancelA()
	ctxA, cancel := context.WithTimeout(ctxA, 120*time.Second)
	defer cancel()
	if err := chromedp.Do(ctxA); err != nil { // starts the browser
		t.Fatal(err)
	}
	// A second tab of the same browser.
	ctxB, cancelB := chromedp.NewContext(ctxA)
	defer cancelB()
	alice := &tab{t: t, name: "alice's tab on replica A", ctx: ctxA}
	bob := &tab{t: t, name: "bob's tab on replica B", ctx: ctxB}

	alice.run("open the inbox", chromedp.Navigate(envA.URL+"/inbox"))
	bob.run("open the inbox on a phone", chromedp.EmulateViewport(390, 844), chromedp.Navigate(envB.URL+"/inbox"))
	bob.until("the picker", `document.body.dataset.devSignIn === "on"`)
	bob.screenshot("inbox-replicas-dev-signin-phone.png")
	alice.devSignIn("alice")
	bob.devSignIn("bob")
	waitListening(t, envA, envB)
	waitSubscribers(t, envA, 1)
	waitSubscribers(t, envB, 1)

	var figures []string
	ms := func(from, to float64) time.Duration { return time.Duration((to - from) * float64(time.Millisecond)) }
	// within checks a change acted at clicked, answered to the actor at
	// answered, and seen by the other tab at seen (Unix milliseconds).
	within := func(what string, clicked, answered, seen float64) {
		t.Helper()
		d, after := ms(clicked, seen), ms(answered, seen)
		figures = append(figures, fmt.Sprintf("%s: %.1f ms (%.1f ms after the actor's answer)", what,
			float64(d.Microseconds())/1000, float64(after.Microseconds())/1000))
		t.Logf("%s: %v (%v after the actor's answer)", what, d.Round(100*time.Microsecond), after.Round(100*time.Microsecond))
		if after >= liveBound || d >= actionBound || d < 0 {
			t.Errorf("%s took %v, %v after the actor's answer; want under %v after it (and %v in all)", what, d, after, liveBound, actionBound)
		}
	}
	openHas := func(name string) string {
		return fmt.Sprintf(`[...document.querySelectorAll("#open button.task div:first-child")].some(d => d.textContent === %q)`, name)
	}
	detailSays := func(s string) string {
		return fmt.Sprintf(`document.getElementById("detail").innerText.includes(%q)`, s)
	}
	noClaim := `![...document.querySelectorAll("#detail button")].some(b => b.textContent === "Claim")`

	// A case started by API: both tabs list its Triage task.
	alice.watch("start", openHas("Triage"))
	bob.watch("start", openHas("Triage"))
	started := float64(time.Now().UnixNano()) / 1e6
	caseID := startShared(t, envA)
	answered := float64(time.Now().UnixNano()) / 1e6
	within("case started by API on A → alice's tab (A)", started, answered, alice.seen("start"))
	within("case started by API on A → bob's tab (B)", started, answered, bob.seen("start"))

	// Alice claims Triage on A while bob looks at it on B.
	bob.selectTask("open", "Triage")
	alice.selectTask("open", "Triage")
	bob.watch("claimed", `!(`+openHas("Triage")+`) && `+detailSays("ASSIGNED · assigned to alice")+` && `+noClaim)
	alice.watch("claimed", `document.getElementById("mine").innerText.includes("Triage") && document.getElementById("f-output") !== null`)
	alice.button("Claim")
	clicked := alice.clickedAt()
	// Alice's own tab shows the mutation's answer.
	answered = alice.seen("claimed")
	t.Logf("alice claims on A → alice's tab (A), the mutation's answer: %.1f ms", answered-clicked)
	within("alice claims on A → bob's tab (B)", clicked, answered, bob.seen("claimed"))
	alice.screenshot("inbox-replicas-claimed-alice-A.png")
	bob.screenshot("inbox-replicas-claimed-bob-B.png")

	// Alice completes it through the form: bob sees the completion, and
	// Fix, which follows it, in his list.
	bob.watch("completed", detailSays("COMPLETED")+` && `+noClaim)
	bob.watch("fix offered", openHas("Fix"))
	alice.watch("completed", `document.getElementById("status").innerText === "Completed" && `+detailSays("COMPLETED"))
	alice.typeInto("f-output", `{}`)
	alice.button("Complete")
	answered = alice.seen("completed")
	clicked = alice.clickedAt()
	within("alice completes on A → bob's tab (B)", clicked, answered, bob.seen("completed"))
	within("alice completes on A → Fix in bob's list (B)", clicked, answered, bob.seen("fix offered"))

	// The reverse: bob claims Fix on B while alice looks at it on A.
	alice.until("Fix is offered to alice", openHas("Fix"))
	alice.selectTask("open", "Fix")
	bob.selectTask("open", "Fix")
	alice.watch("claimed", `!(`+openHas("Fix")+`) && `+detailSays("ASSIGNED · assigned to bob")+` && `+noClaim)
	bob.watch("claimed", `document.getElementById("mine").innerText.includes("Fix") && document.getElementById("f-output") !== null`)
	bob.button("Claim")
	clicked = bob.clickedAt()
	answered = bob.seen("claimed")
	t.Logf("bob claims on B → bob's tab (B), the mutation's answer: %.1f ms", answered-clicked)
	within("bob claims on B → alice's tab (A)", clicked, answered, alice.seen("claimed"))

	// Bob completes Fix with its required output typed into the form.
	alice.watch("completed", detailSays("COMPLETED"))
	typed := `{"Resolution": {"Summary": "Rotated the logs", "Minutes": 12}}`
	bob.typeInto("f-output", typed)
	// A live event about another task while bob types leaves his form be.
	startShared(t, envA)
	bob.until("the second case's Triage is listed", openHas("Triage"))
	if v := evalIn[string](bob, "the form", `document.getElementById("f-output").value`); v != typed {
		t.Fatalf("a live event replaced bob's typing: the form holds %q", v)
	}
	bob.watch("completed", `document.getElementById("status").innerText === "Completed" && `+detailSays("COMPLETED"))
	bob.button("Complete")
	answered = bob.seen("completed")
	within("bob completes on B → alice's tab (A)", bob.clickedAt(), answered, alice.seen("completed"))

	for _, b := range []*tab{alice, bob} {
		if !evalIn[bool](b, "the marker", `window.noReload === true`) {
			t.Errorf("%s reloaded; changes should arrive over the live subscription", b.name)
		}
	}
	if !evalIn[bool](bob, "width", `document.documentElement.scrollWidth <= window.innerWidth`) {
		t.Error("bob's phone-sized page scrolls sideways")
	}
	alice.screenshot("inbox-replicas-done-alice-A.png")
	bob.screenshot("inbox-replicas-done-bob-B.png")
	saveArtifact(t, "inbox-replicas-figures.txt", []byte(strings.Join(figures, "\n")+"\n"))

	// The database agrees, read through the other replica.
	tasks, err := client.CaseTasks(ctx, envB.GraphQL("alice"), caseID)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, task := range tasks.Case.Tasks {
		states[task.Name] = string(task.State)
	}
	if states["Triage"] != "COMPLETED" || states["Fix"] != "COMPLETED" {
		t.Fatalf("task states after the test: %v", states)
	}
}

// startShared starts an incident through replica env's API whose tasks
// alice and bob may both do.
func startShared(t *testing.T, env *servertest.Env) string {
	t.Helper()
	resp, err := client.StartCase(ctx, env.GraphQL("alice"), client.StartCaseInput{Definition: "incident", Tenant: ptr("acme"),
		Inputs: ptr(json.RawMessage(`{"Incident":{"Title":"Disk full","Severity":3}}`)),
		Team: []client.CaseTeamMemberInput{
			{MemberId: "alice", IsOwner: ptr(true), CaseRoles: []string{"Agent", "Engineer"}},
			{MemberId: "bob", CaseRoles: []string{"Agent", "Engineer"}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	return resp.StartCase.Id
}
