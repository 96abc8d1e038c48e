package bash

// Network clients. What they send (secrets, home files), where downloads
// land, HTTP methods and raw connections are judged in network.go.
var networkPrograms = mergeTables(table(plain,
	"curl", "wget", "aria2c", "axel", "http", "https", "xh", "httpie", "lwp-download", "GET", "HEAD", "fetch",
	"ssh", "scp", "sftp", "mosh", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "tftp", "lftp",
	"ping", "ping6", "dig", "nslookup", "host", "drill", "whois", "traceroute", "tracepath", "mtr", "arp",
	"ss", "netstat", "lsof", "iwconfig", "wireshark", "tshark",
	"mail", "mailx", "mutt", "sendmail", "s-nail", "websocat", "wscat", "grpcurl",
	"ssh-copy-id", "ssh-add", "ssh-keyscan", "sshpass", "autossh",
), map[string]spec{
	// they change the machine's network unless asked to show it
	"ip":        plain, // judged in lookthrough.go: OBJECT alone, or show/list/get, only read
	"ifconfig":  {quiet: []string{}, cat: catSystem},
	"route":     {quiet: []string{}, cat: catSystem},
	"tailscale": {quiet: []string{"status", "ip", "ping", "netcheck", "version", "whois"}, cat: catSystem},
})

// tcpdump, openvpn, wg, sshfs, ngrok, cloudflared and nmap need privileges
// or expose the machine: not listed, they ask.
