package httpapi

import (
	"net/http"

	"github.com/typeward/typeward/internal/resources"
)

// addResource lists a protected resource: {"resource": URI, "name": …}.
func (a *Admin) addResource(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Resource string `json:"resource"`
		Name     string `json:"name"`
	}
	if err := readJSON(r, &in, true); err != nil {
		a.fail(w, r, err)
		return
	}
	res, err := a.Resources.Add(r.Context(), resources.Resource{URI: in.Resource, Name: in.Name}, a.now())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, res)
}

func (a *Admin) listResources(w http.ResponseWriter, r *http.Request) {
	all, err := a.Resources.All(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"resources": all})
}

// deleteResource removes ?resource=URI: a URI does not fit in a path
// segment without an escaping two clients could disagree on.
func (a *Admin) deleteResource(w http.ResponseWriter, r *http.Request) {
	uris := r.URL.Query()["resource"]
	if len(uris) != 1 || uris[0] == "" {
		a.fail(w, r, badRequest("give the resource to delete once, as ?resource=URI"))
		return
	}
	if err := a.Resources.Delete(r.Context(), uris[0]); err != nil {
		a.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
