// The CaseGraph inbox: plain JavaScript over /graphql (queries, mutations)
// and a graphql-transport-ws WebSocket for live updates.
"use strict";
(function () {
  const base = location.href.replace(/inbox\/?.*$/, "");
  const endpoint = new URL("graphql", base).href;
  // Development sign-in: answered only by a server run with --dev.
  const devBase = new URL("inbox/dev/", base).href;
  const $ = (id) => document.getElementById(id);
  let token = sessionStorage.getItem("casegraph.token") || "";
  let me = "";
  let selected = "";
  let socket = null;
  let connectedBefore = false;
  const tasks = new Map();

  const TASK = "id name state assignee role mayPerform lastModified output taskModel caseName case { id name }";

  async function gql(query, variables) {
    const resp = await fetch(endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer " + token },
      body: JSON.stringify({ query, variables }),
    });
    const body = await resp.json();
    if (body.errors && body.errors.length) throw new Error(body.errors[0].message);
    return body.data;
  }

  function status(msg, isError) {
    $("status").textContent = msg || "";
    $("status").className = isError ? "error" : "";
  }

  async function signIn(t) {
    token = t.trim();
    try {
      const data = await gql("{ me { userId } }");
      me = data.me.userId;
    } catch (e) {
      status("Sign-in failed: " + e.message, true);
      return;
    }
    sessionStorage.setItem("casegraph.token", token);
    status("");
    $("who").textContent = me;
    $("signin").hidden = true;
    $("devsignin").hidden = true;
    $("app").hidden = false;
    $("signout").hidden = false;
    await reload();
    connect();
  }

  async function reload() {
    const q = `query($mine: TaskFilter, $open: TaskFilter) {
      mine: tasks(filter: $mine, first: 200) { edges { node { ${TASK} } } }
      open: tasks(filter: $open, first: 200) { edges { node { ${TASK} } } }
    }`;
    try {
      const data = await gql(q, { mine: { assignee: me, states: ["ASSIGNED", "DELEGATED"] }, open: { states: ["UNASSIGNED"] } });
      tasks.clear();
      for (const e of data.mine.edges.concat(data.open.edges)) tasks.set(e.node.id, e.node);
      render();
    } catch (e) {
      status(e.message, true);
    }
  }

  function listItem(t) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "task";
    b.setAttribute("aria-current", String(t.id === selected));
    b.innerHTML = "";
    const name = document.createElement("div");
    name.textContent = t.name;
    const meta = document.createElement("div");
    meta.className = "meta";
    meta.textContent = (t.caseName || t.case.name) + " · " + t.state + (t.assignee ? " · " + t.assignee : "");
    b.append(name, meta);
    b.addEventListener("click", () => { selected = t.id; render(); $("detail-title").focus(); });
    li.append(b);
    return li;
  }

  function render() {
    const mine = $("mine"), open = $("open");
    mine.replaceChildren();
    open.replaceChildren();
    const all = [...tasks.values()].sort((a, b) => (a.lastModified < b.lastModified ? 1 : -1));
    for (const t of all) {
      if (t.assignee === me && (t.state === "ASSIGNED" || t.state === "DELEGATED")) mine.append(listItem(t));
      else if (t.state === "UNASSIGNED" && t.mayPerform) open.append(listItem(t));
    }
    if (!mine.children.length) mine.innerHTML = '<li class="meta">Nothing assigned to you.</li>';
    if (!open.children.length) open.innerHTML = '<li class="meta">No unassigned tasks for your roles.</li>';
    renderDetail();
  }

  // The task model's JSON schema (cafienne:implementation task model)
  // becomes a form: strings, numbers, booleans and enums as fields, any
  // other value as JSON text.
  function schemaOf(t) {
    let m = t.taskModel;
    if (typeof m === "string") { try { m = JSON.parse(m); } catch (e) { m = {}; } }
    const s = (m && (m.schema || m.jsonSchema)) || m || {};
    return s.properties ? s : { properties: {} };
  }

  function field(name, prop, value) {
    const id = "f-" + name;
    const wrap = document.createElement("div");
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = prop.title || name;
    let input;
    if (Array.isArray(prop.enum)) {
      input = document.createElement("select");
      for (const v of prop.enum) { const o = document.createElement("option"); o.value = o.textContent = v; input.append(o); }
      if (value !== undefined) input.value = value;
    } else if (prop.type === "boolean") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = value === true;
      input.style.width = "auto";
    } else if (prop.type === "string" || prop.type === "number" || prop.type === "integer") {
      input = document.createElement("input");
      input.type = prop.type === "string" ? "text" : "number";
      if (value !== undefined && value !== null) input.value = value;
    } else {
      input = document.createElement("textarea");
      input.rows = 3;
      input.value = value === undefined ? "" : JSON.stringify(value, null, 2);
    }
    input.id = id;
    input.dataset.name = name;
    input.dataset.type = prop.type || "json";
    wrap.append(label, input);
    return wrap;
  }

  function readForm(form) {
    const out = {};
    for (const el of form.querySelectorAll("[data-name]")) {
      const n = el.dataset.name, ty = el.dataset.type;
      if (ty === "boolean") out[n] = el.checked;
      else if (ty === "number" || ty === "integer") { if (el.value !== "") out[n] = Number(el.value); }
      else if (ty === "string" || el.tagName === "SELECT") { if (el.value !== "") out[n] = el.value; }
      else if (el.value.trim() !== "") out[n] = JSON.parse(el.value);
    }
    return out;
  }

  // What the detail shows: a live event about another task, or one that
  // leaves this one as it was, must not rebuild the form someone is typing in.
  let shown = null;
  function renderDetail() {
    const box = $("detail");
    const t = tasks.get(selected);
    $("detail-title").tabIndex = -1;
    const key = t ? JSON.stringify([t.id, t.state, t.assignee, me]) : "";
    if (key === shown) return;
    shown = key;
    if (!t) { $("detail-title").textContent = "Select a task"; box.replaceChildren(); return; }
    $("detail-title").textContent = t.name;
    box.replaceChildren();
    const meta = document.createElement("p");
    meta.className = "meta";
    meta.textContent = `${t.caseName || t.case.name} · ${t.state}` + (t.assignee ? ` · assigned to ${t.assignee}` : "") + (t.role ? ` · role ${t.role}` : "");
    box.append(meta);
    const actions = document.createElement("div");
    actions.className = "actions";
    const button = (text, fn) => { const b = document.createElement("button"); b.type = "button"; b.textContent = text; b.addEventListener("click", fn); actions.append(b); return b; };
    if (t.state === "UNASSIGNED") {
      button("Claim", () => run(`mutation($id: ID!) { claimTask(id: $id) { ${TASK} } }`, { id: t.id }, "claimTask"));
      box.append(actions);
      return;
    }
    // A finished task, or one someone else holds, is shown, not worked on.
    if (t.assignee !== me || t.state === "COMPLETED" || t.state === "TERMINATED") { box.append(actions); return; }
    const form = document.createElement("form");
    const schema = schemaOf(t);
    const output = t.output || {};
    for (const [name, prop] of Object.entries(schema.properties)) form.append(field(name, prop, output[name]));
    if (!Object.keys(schema.properties).length) form.append(field("output", {}, output));
    form.addEventListener("submit", (e) => e.preventDefault());
    box.append(form);
    const collect = () => {
      const o = readForm(form);
      return Object.keys(schema.properties).length ? o : (o.output || {});
    };
    button("Save", () => { try { run(`mutation($id: ID!, $o: JSON!) { saveTaskOutput(id: $id, output: $o) { ${TASK} } }`, { id: t.id, o: collect() }, "saveTaskOutput", "Saved"); } catch (e) { status(e.message, true); } });
    button("Complete", () => { try { run(`mutation($id: ID!, $o: JSON) { completeTask(id: $id, output: $o) { ${TASK} } }`, { id: t.id, o: collect() }, "completeTask", "Completed"); } catch (e) { status(e.message, true); } });
    button("Revoke", () => run(`mutation($id: ID!) { revokeTask(id: $id) { ${TASK} } }`, { id: t.id }, "revokeTask"));
    box.append(actions);
  }

  async function run(query, vars, field, done) {
    try {
      const data = await gql(query, vars);
      tasks.set(data[field].id, data[field]);
      status(done || "");
      render();
    } catch (e) {
      status(e.message, true);
    }
  }

  // Live updates: graphql-transport-ws; after a reconnect the lists are
  // read again.
  function connect() {
    const url = endpoint.replace(/^http/, "ws");
    socket = new WebSocket(url, "graphql-transport-ws");
    socket.onopen = () => socket.send(JSON.stringify({ type: "connection_init", payload: { token } }));
    socket.onmessage = (ev) => {
      const m = JSON.parse(ev.data);
      if (m.type === "ping") { socket.send(JSON.stringify({ type: "pong" })); return; }
      if (m.type === "connection_ack") {
        $("live").textContent = "live";
        socket.send(JSON.stringify({ id: "inbox", type: "subscribe", payload: {
          query: `subscription { taskChanged { kind matchesFilter task { ${TASK} } } }` } }));
        // Changes made while disconnected: the lists are read again.
        if (connectedBefore) reload();
        connectedBefore = true;
        return;
      }
      if (m.type === "next" && m.payload.data) {
        const t = m.payload.data.taskChanged.task;
        tasks.set(t.id, t);
        render();
      }
    };
    socket.onclose = (ev) => {
      $("live").textContent = "offline" + (ev.reason ? ": " + ev.reason : "");
      socket = null;
      if (token && ev.code !== 4401 && ev.code !== 4403) setTimeout(() => { if (token && !socket) connect(); }, 2000);
    };
  }

  // The users of the tenants, to sign in as without a token; a server not
  // in development mode answers 404 and the picker stays hidden.
  let devAccounts = [];
  async function loadDevUsers() {
    let body;
    // data-dev-sign-in says what the server answered, for tests and styles.
    try {
      const resp = await fetch(devBase + "users", { headers: { Accept: "application/json" } });
      if (!resp.ok) { document.body.dataset.devSignIn = "off"; return; }
      body = await resp.json();
    } catch (e) {
      document.body.dataset.devSignIn = "off";
      return;
    }
    document.body.dataset.devSignIn = "on";
    const select = $("dev-user");
    select.replaceChildren();
    devAccounts = [];
    for (const t of body.tenants || []) {
      const group = document.createElement("optgroup");
      group.label = t.name;
      for (const u of t.users) {
        const o = document.createElement("option");
        o.value = String(devAccounts.length);
        o.textContent = u.userId + (u.name ? " (" + u.name + ")" : "") + " · " + t.name +
          (u.roles.length ? " · " + u.roles.join(", ") : "") + (u.isOwner ? " · owner" : "");
        devAccounts.push({ tenant: t.name, userId: u.userId });
        group.append(o);
      }
      select.append(group);
    }
    const none = devAccounts.length === 0;
    select.disabled = none;
    $("devsignin").querySelector("button").disabled = none;
    $("dev-note").textContent = none ? "No tenant has users yet: create a tenant first (see the README)." :
      "Offered only by a server started with --dev; the development key signs the token." +
      (body.more ? " Showing the first " + devAccounts.length + " users." : "");
    $("devsignin").hidden = Boolean(me);
  }

  $("devsignin").addEventListener("submit", async (e) => {
    e.preventDefault();
    const a = devAccounts[Number($("dev-user").value)];
    if (!a) return;
    try {
      const resp = await fetch(devBase + "token", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(a),
      });
      if (!resp.ok) { status("Sign-in failed: " + (await resp.text()), true); loadDevUsers(); return; }
      signIn((await resp.json()).token);
    } catch (err) {
      status("Sign-in failed: " + err.message, true);
    }
  });
  $("signin").addEventListener("submit", (e) => { e.preventDefault(); signIn($("token").value); });
  $("signout").addEventListener("click", () => {
    token = ""; me = ""; sessionStorage.removeItem("casegraph.token");
    if (socket) socket.close(1000, "signed out");
    tasks.clear();
    selected = ""; shown = null;
    $("app").hidden = true; $("signin").hidden = false; $("signout").hidden = true; $("who").textContent = "";
    loadDevUsers();
  });
  if (token) signIn(token);
  loadDevUsers();
})();
