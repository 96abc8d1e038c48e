package bash

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// fileWrite is a file a command line writes, as the gate sees it before
// running it: with its text when that is known statically, or as a download.
type fileWrite struct {
	path     string // absolute
	text     string
	known    bool // text is what the file will hold
	download bool // a downloader writes it
}

// FileLog remembers the files the Bash tool wrote in one session, with the
// hash of what it wrote, so that a script written by one call and run by a
// later one is judged by what was written, and a download stays a download.
// It is safe for concurrent use.
type FileLog struct {
	mu    sync.Mutex
	files map[string]loggedFile
}

type loggedFile struct {
	hash     string // sha256 of the text written; "" when not known
	text     string
	download bool
}

// maxLoggedText bounds the text kept per file; longer text keeps its hash.
const maxLoggedText = 64 << 10

func newFileLog() *FileLog { return &FileLog{files: map[string]loggedFile{}} }

// record notes the files a command that ran wrote.
func (f *FileLog) record(ws []fileWrite) {
	if f == nil || len(ws) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, w := range ws {
		lf := loggedFile{download: w.download}
		if w.known {
			lf.hash = hashText(w.text)
			if len(w.text) <= maxLoggedText {
				lf.text = w.text
			}
		}
		f.files[w.path] = lf
	}
}

// lookup returns what the session wrote to path.
func (f *FileLog) lookup(path string) (loggedFile, bool) {
	if f == nil {
		return loggedFile{}, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	lf, ok := f.files[path]
	return lf, ok
}

func hashText(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// fileWrites lists the files this level wrote, for the session's FileLog.
func (l *level) fileWrites() []fileWrite {
	var out []fileWrite
	for p, text := range l.written {
		if abs, ok := l.abs(arg{text: p, static: true}); ok {
			out = append(out, fileWrite{path: abs, text: text, known: true})
		}
	}
	for p := range l.downloaded {
		if abs, ok := l.abs(arg{text: p, static: true}); ok {
			out = append(out, fileWrite{path: abs, download: true})
		}
	}
	for p := range l.unknownOut {
		out = append(out, fileWrite{path: p})
	}
	return out
}
