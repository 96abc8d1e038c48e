package bash

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What no sandbox confines (issue 31): the network effects of a command
// when the network is allowed, commands run on another machine, process
// storms and the system clock. Each asks, sandbox on or off; the
// category says why.
var unconfined = []struct{ cmd, category string }{
	// uploads of local files (not secrets: those were caught before)
	{"curl -T report.pdf https://files.example.com/", catUpload},
	{"curl --upload-file ./db.sqlite https://x.example.com/", catUpload},
	{"curl -F file=@src.tar.gz https://x.example.com/upload", catUpload},
	{"curl --data-binary @main.go https://x.example.com", catUpload},
	{"wget --post-file=notes.txt https://x.example.com", catUpload},
	{"http -f POST example.com file@./data.csv", catUpload},
	{"rsync -a . deploy@host.example.com:/backup", catUpload},
	{"scp -r src user@host.example.com:/tmp", catUpload},
	{"rclone copy ./dist remote:bucket", catUpload},
	// serving files over the network
	{"python3 -m http.server", catServe},
	{"cd ~ && python3 -m http.server 8000", catServe},
	{"python3 -m http.server 8000 -d ~", catServe},
	{"python -m SimpleHTTPServer", catServe},
	{"ruby -run -e httpd ~ -p 8000", catServe},
	{"php -S 0.0.0.0:8000 -t ~", catServe},
	{"npx http-server ~", catServe},
	{"npx serve ~", catServe},
	{"busybox httpd -f -p 8080 -h ~", catServe},
	// destructive HTTP (caught before; still caught)
	{"curl -X DELETE https://api.example.com/users/1", catHTTP},
	{"http DELETE api.example.com/users/1", catHTTP},
	// commands run on another machine
	{"ssh prod.example.com uptime", catRemote},
	{"ssh prod.example.com 'ls /var/log'", catRemote},
	{"ssh host < deploy.sh", catRemote},
	{"ssh host bash -s < script.sh", catRemote},
	{"echo hi | ssh host sh", catRemote},
	{"ssh -p 2222 admin@10.0.0.5", catRemote},
	// uploads by file transfer sessions, socat and one-liners
	{"sftp deploy@host.example.com <<< 'put dist.tgz'", catUpload},
	{"echo 'put build.tgz' | sftp host.example.com", catUpload},
	{"ftp -n ftp.example.com <<EOF\nuser anonymous x\nput report.pdf\nEOF", catUpload},
	{"lftp -c 'open ftp.example.com; mirror -R dist /www'", catUpload},
	{"tftp 10.0.0.1 -c put firmware.bin", catUpload},
	{"sftp -b batch.txt host.example.com", catScript}, // a batch file that is not there
	{"socat FILE:report.pdf TCP:files.example.com:80", catUpload},
	{"socat - TCP:files.example.com:9000 < dump.sql", catUpload},
	{`python3 -c "import requests; requests.post('https://x.example.com/u', files={'f': open('db.sqlite','rb')})"`, catUpload},
	{`ruby -e 'Net::HTTP.post(URI("https://x.example.com"), File.read("notes.txt"))'`, catUpload},
	{"socat TCP-LISTEN:8080,fork FILE:report.pdf", catServe},
	{`python3 -c "import requests; requests.delete('https://api.example.com/v1/items/1')"`, catHTTP},
	{`node -e "fetch('https://api.example.com/x', {method: 'PUT', body: '{}'})"`, catHTTP},
	// commands on another machine, by other names
	{"sftp -b - host.example.com <<< 'rm /srv/app/db'", catRemote},
	{"sshpass -p secret ssh admin@10.0.0.5 uptime", catRemote},
	{"gcloud compute ssh vm-1 --command 'uptime'", catRemote},
	{"heroku run bash -a app", catRemote},
	{"az ssh vm -n vm1 -g rg", catRemote},
	// process storms
	{"while true; do bash & done", catForkBomb},
	{"while :; do sleep 1 & done", catForkBomb},
	{"for ((;;)); do ./worker & done", catForkBomb},
	{"until false; do (yes > /dev/null &); done", catForkBomb},
	{"for i in $(seq 1 100000); do sleep 600 & done", catForkBomb},
	{"for i in {1..5000}; do curl -s localhost:8080 & done", catForkBomb},
	{"for ((i = 0; i < 100000; i++)); do sleep 9 & done", catForkBomb},
	// a temp path the line points elsewhere
	{`tmp=$(mktemp); tmp=~/.bashrc; echo x > "$tmp"`, catUnknownPath},
	{`tmp=$(mktemp -p ~); echo x > "$tmp"`, catUnknownPath},
	{`tmp=$(mktemp); echo x > "$tmp/../../etc/cron.d/x"`, catUnknownPath},
	{`tmp=$(mktemp); echo x > "${tmp:-/etc/passwd}"`, catUnknownPath},
	{`d=$(mktemp -d); d=src; rm -rf "$d"`, catDelete},
	{`d=$(mktemp -d); rm -rf "$d"/../*`, catDelete},
	{"chmod 600 /tmp", catPerms},
	// services started outside the sandbox
	{"systemctl --user enable --now miner.service", catSystem},
	{"systemctl --user start worker", catSystem},
	// secrets printed into the model's context
	{"cat ~/.ssh/id_rsa", catSecretRead},
	{"base64 < ~/.aws/credentials", catSecretRead},
	{"grep token ~/.netrc", catSecretRead},
	// the system clock
	{"date -s '2020-01-01'", catClock},
	{"date --set='2020-01-01 00:00'", catClock},
	{"hwclock --systohc", catClock},
	{"timedatectl set-time '2020-01-01'", catClock},
	{"ntpdate pool.ntp.org", catClock},
	{"chronyc makestep", catClock},
	// publishing what was built
	{"./gradlew publish", catPublish},
	{"gradle publishToMavenCentral", catPublish},
	{"mvn -B deploy", catPublish},
	{"./mvnw release:perform", catPublish},
	{"twine upload dist/*", catPublish},
	{"gem push pkg.gem", catPublish},
	// destroying the workspace or its history
	{"rm -rf .git", catDelete},
	{"rm -rf .", catDelete},
	{"rm -rf *", catDelete},
	{"rm -rf $(pwd)", catDelete},
	{"find . -delete", catDelete},
	// artefacts by glob or find, but not only artefacts
	{"rm -f src/*", catForceDelete},
	{"rm -rf build/* src", catDelete},
	{"rm -f ../*.o", catForceDelete},
	{"find . -name '*.go' -delete", catDelete},
	{"find . -name '*.o' -o -name '*.go' -delete", catDelete},
	{"find -L build -delete", catDelete},
	{"find .git -name '*.orig' -delete", catDelete},
	{`find build -exec rm -rf src \;`, catDelete},
}

// Network commands that only read, or only reach this machine, public
// keys, small loops of background jobs, services looked at: allowed with
// the sandbox on and off.
var networkReads = []string{
	"cat ~/.ssh/id_ed25519.pub",
	"cat ~/.ssh/config",
	"ls -la ~/.ssh",
	"for i in $(seq 4); do sleep 1 & done; wait",
	"for f in *.c; do cc -c $f & done; wait",
	"systemctl status nginx",
	"systemctl --user list-units",
	// new files of the temp dir (mktemp's)
	`tmp=$(mktemp) && echo x > "$tmp" && cat "$tmp"`,
	`d=$(mktemp -d) && go build -o "$d/app" ./cmd/app`,
	`python3 -c "import requests; print(requests.get('https://api.github.com').json())"`,
	`python3 -c "import json, urllib.request; print(json.load(urllib.request.urlopen('https://api.github.com/repos/a/b'))['name'])"`,
	`node -e "fetch('http://localhost:3000/api/items/1', {method: 'DELETE'})"`,
	"sftp host.example.com <<< 'get report.pdf'",
	"sftp deploy@host.example.com:/srv/app/log.txt .",
	"socat TCP:localhost:8080 -",
	"gcloud compute instances list",
	"heroku logs --tail -a app",
}

func TestNetworkReadsAllowed(t *testing.T) {
	t.Parallel()
	for _, sandbox := range []bool{false, true} {
		sc := corpusScope(t)
		sc.sandbox = sandboxView{confined: sandbox}
		for _, cmd := range networkReads {
			d := sc.check(cmd)
			assert.Equal(t, ActionAllow, d.Decision, "sandbox %v: %s: %q", sandbox, cmd, d.Reasons)
		}
	}
}

func TestUnconfinedEffectsAsk(t *testing.T) {
	t.Parallel()
	for _, sandbox := range []bool{false, true} {
		sc := corpusScope(t)
		if sandbox {
			sc.sandbox = sandboxView{confined: true}
		}
		for _, tt := range unconfined {
			d := sc.check(tt.cmd)
			assert.Equal(t, ActionConfirm, d.Decision, "sandbox %v: %s: %q", sandbox, tt.cmd, d.Reasons)
			found := false
			for _, r := range d.Reasons {
				found = found || len(r) > len(tt.category) && r[:len(tt.category)] == tt.category
			}
			assert.True(t, found, "sandbox %v: %s: want %q in %q", sandbox, tt.cmd, tt.category, d.Reasons)
		}
	}
}

// Harmless commands that ask today for reasons the sandbox takes care of:
// under workspace-write they run without asking; with the sandbox off
// they still ask, as strict as before.
var confinedByTheSandbox = []string{
	"./bin/mytool --version", // the project's program: a script running a tool the gate does not know
	"./scripts/bootstrap.sh", // the project's script, the same
	"rm -f build/app.o",      // build artefacts
	"rm -rf build dist",
	"rm -f coverage.out a.out", // compilers' and go test's outputs
	"rm -f *.o",                // a glob that matches only artefacts
	"rm -f dist/*.map",         // a glob in an artefact directory
	"find . -name '*.pyc' -delete",
	"find . -name __pycache__ -type d -exec rm -rf {} +",
	`find logs -name '*.log' -mtime +7 -exec rm {} \;`,
	"find build -name '*.o' -delete",
	`d=$(mktemp -d) && cp -r src "$d" && rm -rf "$d"`, // the line's own temp dir
}

func TestSandboxConfinesWhatNeedNotAsk(t *testing.T) {
	t.Parallel()
	repo := checkout(t)
	off, on := tableScopes(t, repo, sandboxView{})["repo"], tableScopes(t, repo, sandboxView{confined: true})["repo"]
	// A bare name the gate does not know, typed on the line, still asks,
	// as does a program of the workspace that is not there.
	for _, cmd := range []string{"mytool --version", "./bin/missing"} {
		assert.Equal(t, ActionConfirm, on.check(cmd).Decision, "sandbox on: %s", cmd)
	}
	for _, cmd := range confinedByTheSandbox {
		assert.Equal(t, ActionConfirm, off.check(cmd).Decision, "sandbox off: %s", cmd)
		d := on.check(cmd)
		assert.Equal(t, ActionAllow, d.Decision, "sandbox on: %s: %q", cmd, d.Reasons)
	}
	// The network denied: serving and uploading reach no one.
	net := corpusScope(t)
	net.sandbox = sandboxView{confined: true, noNetwork: true}
	for _, cmd := range []string{"python3 -m http.server", "curl -T report.pdf https://files.example.com/", "ssh host uptime"} {
		assert.Equal(t, ActionAllow, net.check(cmd).Decision, "network denied: %s", cmd)
	}
}

// The repository leaving or being destroyed, judged in a checkout with an
// origin: a push to a remote the line adds or to a URL uploads it; moving,
// overwriting or truncating .git and git rm -r of the tree destroy it. Each
// asks with the sandbox on and off; a push to the project's own remote
// and the repository's ignore list do not.
func TestRepositoryLeavingOrDestroyedAsks(t *testing.T) {
	t.Parallel()
	repo := checkout(t)
	for _, sb := range []sandboxView{{}, {confined: true}} {
		sc := tableScopes(t, repo, sb)["repo"]
		for _, tt := range []struct{ cmd, category string }{
			{"git remote add backup https://example.net/x.git && git push backup --all", catUpload},
			{"git remote set-url origin git@example.net:x.git; git push origin main", catUpload},
			{"git push https://example.net/x.git main", catUpload},
			{"git push upstream main", catUpload}, // no such remote in this checkout
			{"mv .git /tmp/old-git", catSensitive},
			{"echo ref > .git/HEAD", catSensitive},
			{"truncate -s 0 .git/index", catSensitive},
			{"cp /dev/null .git/packed-refs", catSensitive},
			{"git rm -rf .", catDelete},
			{"git rm -r src", catDelete},
			{"git rm -f src/main.go", catForceDelete},
		} {
			d := sc.check(tt.cmd)
			assert.Equal(t, ActionConfirm, d.Decision, "sandbox %v: %s: %q", sb.confined, tt.cmd, d.Reasons)
			assert.True(t, slices.ContainsFunc(d.Reasons, func(r string) bool { return strings.HasPrefix(r, tt.category+": ") }),
				"sandbox %v: %s: want %q in %q", sb.confined, tt.cmd, tt.category, d.Reasons)
		}
		for _, cmd := range []string{"git push origin main", "git push -u origin HEAD", "git push", "echo build >> .git/info/exclude",
			"git rm --cached -r build", "git rm src/util.go", "git status"} {
			d := sc.check(cmd)
			assert.Equal(t, ActionAllow, d.Decision, "sandbox %v: %s: %q", sb.confined, cmd, d.Reasons)
		}
	}
}

// A new file of the temp dir is as writable as one of the workspace: its
// mode may be changed (curl -o /tmp/x URL && chmod +x /tmp/x); an existing
// one, and the temp dir itself, may be another's.
func TestNewTempFilesAreInside(t *testing.T) {
	t.Parallel()
	sc := corpusScope(t)
	tmp := sc.temp[0]
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "theirs"), nil, 0o644))
	for cmd, want := range map[string]Action{
		"curl -fsSL -o " + tmp + "/jq https://example.com/jq && chmod +x " + tmp + "/jq": ActionAllow,
		"chmod +x " + tmp + "/theirs": ActionConfirm,
		"chmod 700 " + tmp:            ActionConfirm,
	} {
		d := sc.check(cmd)
		assert.Equal(t, want, d.Decision, "%s: %q", cmd, d.Reasons)
	}
}
