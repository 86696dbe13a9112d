package rest

import (
	"embed"
	"net/http"
)

// The Redoc page's script is fetched from the npm registry at a pinned
// version and committed (apidocs/VERSIONS), so the page needs no CDN.
//
//go:generate sh ../scripts/npm-assets.sh apidocs redoc@2.5.0:bundles/redoc.standalone.js redoc@2.5.0:LICENSE=LICENSE.redoc

//go:embed apidocs/redoc.standalone.js
var apiDocsAssets embed.FS

// apiDocsPage is the human view of /api-docs/swagger.json. Its URLs are
// relative, so it works behind a path prefix too.
const apiDocsPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>CaseGraph REST API</title>
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<redoc spec-url="api-docs/swagger.json" hide-download-button="false"></redoc>
<script src="api-docs/redoc.standalone.js"></script>
</body>
</html>
`

func (a *API) apiDocs(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(apiDocsPage))
}

func (a *API) apiDocsScript(w http.ResponseWriter, r *http.Request) {
	b, err := apiDocsAssets.ReadFile("apidocs/redoc.standalone.js")
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	_, _ = w.Write(b)
}
