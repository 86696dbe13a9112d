package resolvers_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/graph/client"
)

// chromium finds a Chromium or Chrome binary. Without one the browser test
// skips on a workstation but fails in CI, so it never goes missing unseen.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true but no chromium, chromium-browser or google-chrome on PATH; the inbox browser test needs one (apt-get install -y chromium)")
	}
	t.Skip("no chromium on PATH; install it to run the inbox browser test: apt-get install -y chromium")
	return ""
}

// TestInboxInBrowser drives the inbox page in headless Chromium: a server
// not in development mode offers no user picker, carl signs in with a
// token, a case alice starts puts a task carl may claim into his
// list without a reload, and carl claims and completes it from the page.
func TestInboxInBrowser(t *testing.T) {
	bin := chromium(t)
	env := servertest.Start(t, db.SQLite)
	deployIncident(t, env)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		// Root in a container has no user namespaces for the sandbox.
		chromedp.NoSandbox,
		chromedp.WindowSize(1200, 800),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	defer cancelBrowser()
	bctx, cancel := context.WithTimeout(bctx, 60*time.Second)
	defer cancel()

	// until waits for a JavaScript condition on the page and says which
	// step it was waiting for when it times out.
	until := func(step, expr string) {
		t.Helper()
		wctx, wcancel := context.WithTimeout(bctx, 15*time.Second)
		defer wcancel()
		if err := chromedp.Do(wctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
			page, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.innerText`))
			t.Fatalf("%s: %v\npage text:\n%s", step, err, page)
		}
	}
	run := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	text := func(id string) string { return fmt.Sprintf(`document.getElementById(%q).innerText`, id) }

	run("open the inbox", chromedp.Navigate(env.URL+"/inbox"), chromedp.WaitVisible(chromedp.CSS(`#token`)))
	// Not in development mode: the server offers no users to pick.
	until("no development picker", `document.body.dataset.devSignIn === "off" && document.getElementById("devsignin").hidden && `+
		`document.getElementById("app").hidden && getComputedStyle(document.getElementById("app")).display === "none"`)
	run("sign in", chromedp.SetValue(chromedp.CSS(`#token`), env.Issuer.Token("carl")),
		chromedp.Click(chromedp.CSS(`#signin button[type=submit]`)))
	until("signed in and live", text("who")+` === "carl" && `+text("live")+` === "live" && !document.getElementById("app").hidden && `+
		text("open")+`.includes("No unassigned tasks")`)
	// A marker on the window: a reload would drop it.
	run("mark the page", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.noReload = true`))
		return err
	}))
	waitSubscribers(t, env, 1)

	_, taskID := startIncident(t, env)
	until("the new task is listed live", text("open")+`.includes("Triage") && `+text("open")+`.includes("Incident · UNASSIGNED")`)

	run("select the task", chromedp.Click(chromedp.CSS(`#open button.task`)))
	until("the detail offers Claim", text("detail-title")+` === "Triage" && [...document.querySelectorAll("#detail button")].some(b => b.textContent === "Claim")`)
	run("claim", chromedp.Click(chromedp.Search(`//div[@id="detail"]//button[text()="Claim"]`)))
	until("the claimed task is mine", text("mine")+`.includes("Triage") && `+text("mine")+`.includes("ASSIGNED · carl") && !`+
		text("open")+`.includes("Triage") && document.getElementById("f-output") !== null && `+text("detail")+`.includes("assigned to carl")`)

	run("complete", chromedp.Click(chromedp.Search(`//div[@id="detail"]//button[text()="Complete"]`)))
	until("the task is completed and gone from the lists", text("status")+` === "Completed" && `+text("detail")+`.includes("COMPLETED") && !`+
		text("mine")+`.includes("Triage") && !`+text("open")+`.includes("Triage")`)
	// A completed task is read-only: no Save, Complete or Revoke.
	until("the completed task offers no actions", `document.querySelectorAll("#detail button").length === 0`)
	if kept, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`window.noReload === true`)); err != nil || !kept {
		t.Error("the page reloaded; the task should have arrived over the live subscription")
	}

	png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := filepath.Join("testdata", "artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot, _ := filepath.Abs(filepath.Join(dir, "inbox-completed.png"))
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)

	// The server agrees: the task is completed, by REST and GraphQL.
	resp := env.Do(servertest.Request{Method: "GET", Path: "/tasks/" + taskID, User: "carl"})
	if resp.Status != 200 || !strings.Contains(resp.Body, `"taskState":"Completed"`) {
		t.Fatalf("GET /tasks/%s: %d %s", taskID, resp.Status, resp.Body)
	}
	task, err := client.Task(ctx, env.GraphQL("alice"), taskID)
	if err != nil || task.Task.State != client.TaskStateCompleted {
		t.Fatalf("task after completion: %+v %v", task, err)
	}
}
