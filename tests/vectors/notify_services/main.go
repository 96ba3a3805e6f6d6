// Command notify_services writes test vectors for reporters/sinks/*.py from
// notifications-engine itself, at the version Argo CD v3.2.9 and later pin: for each input
// line, the HTTP requests the upstream service's Send makes for a notification and a
// recipient, captured by a local server that answers as the real API does on success.
//
//	python inputs.py | go run . > vectors.jsonl   (one JSON object per line)
//
// An input is {"name", "service", "options", "notification", "recipient"}. In "options",
// the string BASE stands for the capture server's http:// URL, HOSTPORT for its host:port
// TLSHOST for the host:port of a TLS one, and "SMTPPORT" (quoted) for the port of an SMTP
// server that takes every mail, without TLS or a login (recorded as a request with method
// SMTP and body {mail_from, rcpt_to, data}) (Opsgenie's SDK speaks https:// to the host it is given). The
// services with a fixed endpoint (Telegram, PagerDuty, Pushover) reach the capture server
// through http.DefaultTransport, which sends every request there.
//
// Each line has "name" and "requests" (method, host, path, query, content_type,
// authorization, body: JSON decoded, a form as a map, or text) or "error" (what Send
// returned).
package main

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/argoproj/notifications-engine/pkg/services"
)

type input struct {
	Name         string                `json:"name"`
	Service      string                `json:"service"`
	Options      json.RawMessage       `json:"options"`
	Notification services.Notification `json:"notification"`
	Recipient    string                `json:"recipient"`
}

type request struct {
	Method        string `json:"method"`
	Host          string `json:"host"`
	Path          string `json:"path"`
	Query         string `json:"query"`
	ContentType   string `json:"content_type"`
	Authorization string `json:"authorization"`
	Body          any    `json:"body"`
}

type vector struct {
	Name     string          `json:"name"`
	In       json.RawMessage `json:"in"`
	Requests []request       `json:"requests"`
	Error    string          `json:"error,omitempty"`
}

var (
	mu       sync.Mutex
	captured []request
)

// answer is what each API answers a request it takes.
func answer(w http.ResponseWriter, path string) {
	reply := func(status int, body string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
	switch {
	case strings.HasPrefix(path, "/teams/"):
		_, _ = io.WriteString(w, "1")
	case strings.Contains(path, "/powerautomate/"):
		w.WriteHeader(http.StatusAccepted)
	case strings.HasSuffix(path, "/getMe"):
		reply(200, `{"ok":true,"result":{"id":1,"is_bot":true,"first_name":"argocd","username":"argocd_bot"}}`)
	case strings.HasSuffix(path, "/sendMessage"):
		reply(200, `{"ok":true,"result":{"message_id":1,"date":0,"chat":{"id":-1,"type":"channel"}}}`)
	case path == "/v2/alerts":
		reply(202, `{"result":"Request will be processed","took":0.1,"requestId":"r"}`)
	case path == "/v2/enqueue":
		reply(202, `{"status":"success","message":"Event processed","dedup_key":"d"}`)
	case path == "/api/v4/posts":
		reply(201, `{"id":"p"}`)
	case path == "/1/messages.json":
		w.Header().Set("X-Limit-App-Limit", "10000")
		w.Header().Set("X-Limit-App-Remaining", "9999")
		w.Header().Set("X-Limit-App-Reset", "1393653600")
		reply(200, `{"status":1,"request":"r"}`)
	default:
		reply(200, `{}`)
	}
}

func capture(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	host := r.Header.Get("X-Original-Host")
	if host == "" {
		host = "capture"
	}
	got := request{
		Method: r.Method, Host: host, Path: r.URL.Path, Query: r.URL.RawQuery,
		ContentType: r.Header.Get("Content-Type"), Authorization: r.Header.Get("Authorization"),
	}
	var body any
	switch {
	case strings.HasPrefix(got.ContentType, "application/x-www-form-urlencoded"):
		form, _ := url.ParseQuery(string(raw))
		flat := map[string]string{}
		for k, v := range form {
			flat[k] = v[0]
		}
		body = flat
	case json.Unmarshal(raw, &body) == nil:
	default:
		body = string(raw)
	}
	got.Body = body
	if !strings.HasSuffix(got.Path, "/getMe") {
		mu.Lock()
		captured = append(captured, got)
		mu.Unlock()
	}
	answer(w, r.URL.Path)
}

// address is the <...> of a MAIL FROM or RCPT TO line.
func address(line string) string {
	start, end := strings.Index(line, "<"), strings.Index(line, ">")
	if start < 0 || end < start {
		return ""
	}
	return line[start+1 : end]
}

// smtpCapture takes mails as a relay without TLS or authentication would, recording each
// as a request with method SMTP and body {mail_from, rcpt_to, data}.
func smtpCapture(listener net.Listener) {
	for {
		conn, err := listener.Accept()
		if err != nil {
			return
		}
		go func(conn net.Conn) {
			defer conn.Close()
			reader := bufio.NewReader(conn)
			say := func(line string) { _, _ = io.WriteString(conn, line+"\r\n") }
			say("220 capture ESMTP")
			mail := map[string]any{"rcpt_to": []string{}}
			for {
				line, err := reader.ReadString('\n')
				if err != nil {
					return
				}
				verb := strings.ToUpper(strings.TrimSpace(line))
				switch {
				case strings.HasPrefix(verb, "EHLO"), strings.HasPrefix(verb, "HELO"):
					say("250-capture")
					say("250 8BITMIME")
				case strings.HasPrefix(verb, "MAIL FROM:"):
					mail["mail_from"] = address(line)
					say("250 2.1.0 Ok")
				case strings.HasPrefix(verb, "RCPT TO:"):
					mail["rcpt_to"] = append(mail["rcpt_to"].([]string), address(line))
					say("250 2.1.5 Ok")
				case verb == "DATA":
					say("354 End data with <CR><LF>.<CR><LF>")
					var data strings.Builder
					for {
						part, err := reader.ReadString('\n')
						if err != nil {
							return
						}
						if part == ".\r\n" {
							break
						}
						data.WriteString(strings.TrimPrefix(part, "."))
					}
					mail["data"] = data.String()
					mu.Lock()
					captured = append(captured, request{Method: "SMTP", Host: "capture", Body: mail})
					mu.Unlock()
					mail = map[string]any{"rcpt_to": []string{}}
					say("250 2.0.0 Ok: queued")
				case verb == "QUIT":
					say("221 2.0.0 Bye")
					return
				default:
					say("250 Ok")
				}
			}
		}(conn)
	}
}

// redirect sends every request made through http.DefaultTransport to the capture server.
type redirect struct {
	to   *url.URL
	base http.RoundTripper
}

func (t redirect) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Original-Host", r.URL.Host)
	r.URL.Scheme, r.URL.Host, r.Host = t.to.Scheme, t.to.Host, t.to.Host
	return t.base.RoundTrip(r)
}

func main() {
	plain := httptest.NewServer(http.HandlerFunc(capture))
	defer plain.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(capture))
	defer secure.Close()
	smtp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer smtp.Close()
	go smtpCapture(smtp)
	to, _ := url.Parse(plain.URL)
	base := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // loopback only
	http.DefaultTransport = redirect{to: to, base: base}
	http.DefaultClient = &http.Client{Transport: http.DefaultTransport}

	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	for scanner.Scan() {
		var in input
		if err := json.Unmarshal(scanner.Bytes(), &in); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		options := strings.NewReplacer(
			"BASE", plain.URL, "TLSHOST", strings.TrimPrefix(secure.URL, "https://"),
			"HOSTPORT", strings.TrimPrefix(plain.URL, "http://"),
			`"SMTPPORT"`, fmt.Sprint(smtp.Addr().(*net.TCPAddr).Port),
		).Replace(string(in.Options))
		mu.Lock()
		captured = nil
		mu.Unlock()
		v := vector{Name: in.Name, In: append(json.RawMessage{}, scanner.Bytes()...), Requests: []request{}}
		service, err := services.NewService(in.Service, []byte(options))
		if err == nil {
			err = service.Send(in.Notification, services.Destination{Service: in.Service, Recipient: in.Recipient})
		}
		if err != nil {
			v.Error = strings.ReplaceAll(err.Error(), plain.URL, "BASE")
		}
		mu.Lock()
		v.Requests = append(v.Requests, captured...)
		mu.Unlock()
		if err := out.Encode(v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
