// Command device-as is the example OpenID Provider of zitadel/oidc
// (github.com/zitadel/oidc/v3: its pkg/op provider, with the in-memory
// storage, users and login pages of its example/server) with a client that
// may use the device authorization grant (RFC 8628), which the example's
// own main registers none of. It is the authorization server of mcpv's
// end-to-end test of `mcpv auth login --device` (e2e
// TestDeviceLoginAgainstZitadel); scripts/device-as.sh builds it.
//
// It listens on 127.0.0.1 at -addr (a free port by default) and prints
// one line on stdout once it does: "issuer URL", the issuer being
// http://127.0.0.1:PORT/ (with the trailing slash the example's issuer has).
//
// The device client is "mcpv-device" with the secret "mcpv-device-secret"
// (client_secret_basic: the provider authenticates a confidential device
// client only with HTTP Basic); the user is "mcpv-user" with the password
// "mcpv-password". Only for tests: the secrets are in this comment.
//
// The user's id is its name: the example's device pages complete a
// device authorization with the user name as the subject, which its user
// store looks up as an id, so that with the example's users (ids "id1"
// and "id2") the userinfo endpoint refuses every device token.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"golang.org/x/text/language"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "the loopback address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "device-as:", err)
		os.Exit(1)
	}
	issuer := fmt.Sprintf("http://%s/", ln.Addr())
	storage.RegisterClients(storage.DeviceClient("mcpv-device", "mcpv-device-secret"))
	people := users{"mcpv-user": {ID: "mcpv-user", Username: "mcpv-user", Password: "mcpv-password",
		FirstName: "Device", LastName: "User", Email: "mcpv-user@example.com", EmailVerified: true, PreferredLanguage: language.English}}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	router := exampleop.SetupServer(issuer, storage.NewStorage(people), logger, false)
	fmt.Println("issuer", issuer)
	if err := http.Serve(ln, router); err != nil {
		fmt.Fprintln(os.Stderr, "device-as:", err)
		os.Exit(1)
	}
}

// users is a storage.UserStore of users by id.
type users map[string]*storage.User

func (u users) GetUserByID(id string) *storage.User { return u[id] }

func (u users) GetUserByUsername(name string) *storage.User {
	for _, user := range u {
		if user.Username == name {
			return user
		}
	}
	return nil
}

// ExampleClientID is the example's service user, whose key the storage
// holds for the JWT profile grant (unused here).
func (u users) ExampleClientID() string { return storage.ServiceUserID }
