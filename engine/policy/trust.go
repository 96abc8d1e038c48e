package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// ProjectFile is where a project keeps its policy, relative to its root.
const ProjectFile = ".interlock/policy.toml"

// Trust is the user's record of the project policy files they trusted,
// each bound to the SHA-256 of its content: a file that changed since is
// not trusted until trusted again. It is kept in a JSON file when made
// with a path, else in memory. Safe for concurrent use.
type Trust struct {
	mu     sync.Mutex
	path   string
	loaded bool
	files  map[string]trusted // absolute path of the policy file -> what was trusted
}

type trusted struct {
	SHA256 string    `json:"sha256"`
	At     time.Time `json:"at"`
}

// NewTrust returns the trust record kept in the JSON file at path ("":
// in memory only). The file is read when first needed.
func NewTrust(path string) *Trust { return &Trust{path: path} }

func (t *Trust) load() error {
	if t.loaded {
		return nil
	}
	t.files = map[string]trusted{}
	if t.path != "" {
		data, err := os.ReadFile(t.path)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return fmt.Errorf("read the trusted project policies %s: %w", t.path, err)
		default:
			if err := json.Unmarshal(data, &t.files); err != nil {
				return fmt.Errorf("read the trusted project policies %s: %w (fix or delete the file; every project policy is then untrusted)", t.path, err)
			}
		}
	}
	t.loaded = true
	return nil
}

// Trusted reports whether the policy file at path was trusted with the
// content whose SHA-256 is sha (hex).
func (t *Trust) Trusted(path, sha string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.load() != nil {
		return false
	}
	tr, ok := t.files[path]
	return ok && tr.SHA256 == sha
}

// Add trusts the policy file at path with the content whose SHA-256 is sha.
func (t *Trust) Add(path, sha string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.load(); err != nil {
		return err
	}
	t.files[path] = trusted{SHA256: sha, At: time.Now().UTC()}
	return t.save()
}

// Remove forgets the trust of the policy file at path.
func (t *Trust) Remove(path string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.load(); err != nil {
		return err
	}
	delete(t.files, path)
	return t.save()
}

func (t *Trust) save() error {
	if t.path == "" {
		return nil
	}
	data, err := json.MarshalIndent(t.files, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return fmt.Errorf("write the trusted project policies %s: %w", t.path, err)
	}
	tmp := t.path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("write the trusted project policies %s: %w", t.path, err)
	}
	return os.Rename(tmp, t.path)
}

// Review is a project's policy file as a person is shown it before
// trusting it: where it is, the hash trust binds to, and what its rules do.
type Review struct {
	Path    string       `json:"path"`
	SHA256  string       `json:"sha256"`
	Trusted bool         `json:"trusted"` // trusted with this content
	Rules   []RuleReview `json:"rules"`
	// Error says why the file does not load (it cannot be trusted as it is);
	// SHA256 is then the content's and Rules empty.
	Error string `json:"error,omitempty"`
}

// RuleReview is one rule of a Review.
type RuleReview struct {
	Name     string   `json:"name"`
	Decision Decision `json:"decision"`
	Reason   string   `json:"reason"`
	Matches  string   `json:"matches"` // "program git, subcommand push"
	Shadow   bool     `json:"shadow,omitempty"`
}

// ReviewOf is f's review, trusted or not.
func ReviewOf(f *File, trusted bool) Review {
	rv := Review{Path: f.Path, SHA256: f.SHA256, Trusted: trusted, Rules: make([]RuleReview, len(f.Rules))}
	for i, r := range f.Rules {
		rv.Rules[i] = RuleReview{Name: r.Name, Decision: r.Decision, Reason: r.Reason, Matches: r.matches, Shadow: r.Shadow}
	}
	return rv
}
