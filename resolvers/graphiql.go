package resolvers

import (
	"embed"
	"html/template"
	"io"
	"net/http"
	"path"
	"strings"
)

// GraphiQL's scripts and styles are fetched from the npm registry at pinned
// versions and committed (graphiql/VERSIONS), so the page works without
// internet and loads nothing from a CDN.
//
//go:generate sh ../scripts/npm-assets.sh graphiql graphiql@3.8.3:graphiql.min.js graphiql@3.8.3:graphiql.min.css graphiql@3.8.3:LICENSE=LICENSE.graphiql react@18.3.1:umd/react.production.min.js react@18.3.1:LICENSE=LICENSE.react react-dom@18.3.1:umd/react-dom.production.min.js react-dom@18.3.1:LICENSE=LICENSE.react-dom

//go:embed graphiql/*.js graphiql/*.css
var graphiqlAssets embed.FS

// GraphiQL returns the GraphiQL page that talks to endpoint, at its path
// (e.g. /graphiql), and its assets below it (/graphiql/graphiql.min.js).
func GraphiQL(endpoint string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// "/graphiql/" is the page too: its relative asset paths resolve
		// below it, and any prefix of an asset name is served.
		if !strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/graphiql") {
			serveGraphiQLAsset(w, r, path.Base(r.URL.Path))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = graphiqlPage.Execute(w, struct{ Endpoint, Base string }{endpoint, path.Base(r.URL.Path)})
	})
}

func serveGraphiQLAsset(w http.ResponseWriter, _ *http.Request, name string) {
	writeAsset(w, graphiqlAssets, "graphiql/"+name, func(h http.Header) { h.Set("Cache-Control", "public, max-age=86400") })
}

// assetTypes are the types of the embedded pages' files, fixed here rather
// than read from the machine's MIME tables.
var assetTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
}

// writeAsset answers with embedded file file of fsys, its type by its
// extension, after header adds the page's own headers; an unknown file
// gets assetNotFound.
func writeAsset(w http.ResponseWriter, fsys embed.FS, file string, header func(http.Header)) {
	b, err := fsys.ReadFile(file)
	if err != nil {
		assetNotFound(w)
		return
	}
	w.Header().Set("Content-Type", assetTypes[path.Ext(file)])
	header(w.Header())
	_, _ = w.Write(b)
}

// graphiqlPage explains the token header above the editor and puts a
// template of it in the headers pane.
var graphiqlPage = template.Must(template.New("graphiql").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>CaseGraph GraphiQL</title>
<link rel="stylesheet" href="{{.Base}}/graphiql.min.css">
<style>
  html, body { height: 100%; margin: 0; }
  body { display: flex; flex-direction: column; font-family: system-ui, sans-serif; }
  #token-help { padding: 6px 12px; font-size: 13px; background: #f3f4f6; border-bottom: 1px solid #d1d5db; }
  #token-help code { background: #e5e7eb; padding: 1px 4px; border-radius: 3px; }
  #graphiql { flex: 1; min-height: 0; }
</style>
</head>
<body>
<div id="token-help">
  <strong>Token:</strong> every query but <code>platform</code> needs one. Open the <em>Headers</em> pane below the
  editor and set <code>{"Authorization": "Bearer &lt;token&gt;"}</code>. With <code>casegraph serve --dev</code>,
  <code>casegraph token alice</code> prints a token for alice. The <em>Docs</em> pane (book icon, top left) describes
  every type and field (<a href="?docs">open it</a>).
</div>
<div id="graphiql">Loading GraphiQL…</div>
<script src="{{.Base}}/react.production.min.js"></script>
<script src="{{.Base}}/react-dom.production.min.js"></script>
<script src="{{.Base}}/graphiql.min.js"></script>
<script>
  const base = GraphiQL.createFetcher({ url: {{.Endpoint}} });
  // The preset header is a placeholder: until a real token replaces it,
  // requests go without one (introspection and platform need none).
  const fetcher = (params, opts) => {
    const h = opts && opts.headers;
    if (h && typeof h.Authorization === "string" && h.Authorization.includes("<token>")) {
      delete h.Authorization;
    }
    return base(params, opts);
  };
  // /graphiql?docs opens the documentation explorer.
  const docs = new URLSearchParams(location.search).has("docs");
  const defaultQuery = "# Put your token in the Headers pane below: {\"Authorization\": \"Bearer <token>\"}\n" +
    "# (casegraph token alice prints one with serve --dev).\n\n" +
    "{\n  me { userId tenants { tenant roles isOwner } }\n  platform { version { version } health { ok } }\n}\n";
  ReactDOM.createRoot(document.getElementById("graphiql")).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: defaultQuery,
      defaultHeaders: '{"Authorization": "Bearer <token>"}',
      defaultEditorToolsVisibility: "headers",
      shouldPersistHeaders: true,
      visiblePlugin: docs ? "Documentation Explorer" : undefined,
    }),
  );
</script>
</body>
</html>
`))

// assetNotFound answers a request for an embedded page asset (GraphiQL,
// the inbox) that does not exist, as any unknown GET of the REST door
// answers.
func assetNotFound(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
	w.WriteHeader(http.StatusNotFound)
	_, _ = io.WriteString(w, "The requested resource could not be found but may be available again in the future.")
}
