package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/replhost/replhost/users"
	gossh "golang.org/x/crypto/ssh"
)

// hostKeyFile is the host key, created on first start and kept.
const hostKeyFile = "host_ed25519"

// bootstrap makes a fresh root usable with nothing else to set up: with no
// user configured, it creates one named after $USER (or dev) with a client
// key pair under ROOT/users/NAME/, writes a known_hosts for the host key,
// and prints the exact ssh command that logs in.
func bootstrap(root, listen string, hostKey gossh.Signer, dir *users.Dir, out io.Writer) error {
	names, err := dir.List()
	if err != nil {
		return err
	}
	generated := ""
	if len(names) == 0 {
		name := defaultUserName()
		keyPath := filepath.Join(dir.Path(name), "id_ed25519")
		if err := os.MkdirAll(dir.Path(name), 0o700); err != nil {
			return err
		}
		signer, _, err := users.LoadOrCreateKey(keyPath, name+"@replhost")
		if err != nil {
			return err
		}
		if _, err := dir.Add(name, users.AuthorizedLine(signer, name+"@replhost")); err != nil {
			return err
		}
		fmt.Fprintf(out, "created user %s with a new key pair in %s\n", name, dir.Path(name))
		generated = name
	} else {
		// Keep printing the command for the user whose key the host made.
		for _, n := range names {
			if _, err := os.Stat(filepath.Join(dir.Path(n), "id_ed25519")); err == nil {
				generated = n
				break
			}
		}
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("--listen %q: %w", listen, err)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	knownHosts := filepath.Join(root, "known_hosts")
	line := knownHostsLine(host, port, hostKey)
	if err := os.WriteFile(knownHosts, []byte(line), 0o600); err != nil {
		return err
	}
	if generated != "" {
		key := filepath.Join(dir.Path(generated), "id_ed25519")
		cfg := filepath.Join(root, sshConfigFile)
		if err := writeSSHConfig(cfg, host, port, generated, key, knownHosts); err != nil {
			return err
		}
		fmt.Fprintf(out, "log in with:\n  ssh -i %s -o IdentitiesOnly=yes -o UserKnownHostsFile=%s -p %s %s@%s\n",
			key, knownHosts, port, generated, sshHost(host))
		fmt.Fprintf(out, "or, with the same options from %s (scp -F and sftp -F too):\n  ssh -F %s replhost\n", cfg, cfg)
	}
	return nil
}

// sshConfigFile is an ssh_config with one Host entry, "replhost", that
// carries every option the printed command has: `ssh -F ROOT/ssh_config
// replhost`, `scp -F ...` and `sftp -F ...` work as they are pasted, and
// the entry can be copied into ~/.ssh/config.
const sshConfigFile = "ssh_config"

func writeSSHConfig(name, host, port, user, key, knownHosts string) error {
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	text := fmt.Sprintf("# Written by replhost on first start; copy into ~/.ssh/config to use it without -F.\n"+
		"Host replhost\n  HostName %s\n  Port %s\n  User %s\n  IdentityFile %s\n  IdentitiesOnly yes\n  UserKnownHostsFile %s\n",
		host, port, user, abs(key), abs(knownHosts))
	return os.WriteFile(name, []byte(text), 0o600)
}

func knownHostsLine(host, port string, key gossh.Signer) string {
	addr := host
	if port != "22" {
		addr = "[" + host + "]:" + port
	}
	return addr + " " + strings.TrimSpace(string(gossh.MarshalAuthorizedKey(key.PublicKey()))) + "\n"
}

func sshHost(host string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}

func defaultUserName() string {
	name := os.Getenv("USER")
	if name == "" {
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
	}
	if users.CheckName(name) != nil {
		name = "dev"
	}
	return name
}
