package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
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
// and prints the exact ssh command that logs in. A cluster node (own not
// empty: ROOT/nodes/NAME) writes its files with its own address there, and
// ROOT's only if they are absent: nodes never rewrite each other's.
func bootstrap(root, own, listen string, hostKey gossh.Signer, dir *users.Dir, out io.Writer) error {
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
	key := ""
	if generated != "" {
		key = filepath.Join(dir.Path(generated), "id_ed25519")
	}
	files := root
	if own != "" {
		if err := writeLoginFiles(root, host, port, generated, key, hostKey, false); err != nil {
			return err
		}
		files = own
	}
	if err := writeLoginFiles(files, host, port, generated, key, hostKey, true); err != nil {
		return err
	}
	if generated != "" {
		knownHosts, cfg := filepath.Join(files, "known_hosts"), filepath.Join(files, sshConfigFile)
		fmt.Fprintf(out, "log in with:\n  ssh -i %s -o IdentitiesOnly=yes -o UserKnownHostsFile=%s -p %s %s@%s\n",
			key, knownHosts, port, generated, sshHost(host))
		fmt.Fprintf(out, "or, with the same options from %s (scp -F and sftp -F too):\n  ssh -F %s replhost\n", cfg, cfg)
	}
	return nil
}

// writeLoginFiles writes dir/known_hosts and, for a user whose key the
// host made, dir/ssh_config; with overwrite false, only those absent.
func writeLoginFiles(dir, host, port, user, key string, hostKey gossh.Signer, overwrite bool) error {
	knownHosts := filepath.Join(dir, "known_hosts")
	if err := writeFileOnce(knownHosts, []byte(knownHostsLine(host, port, hostKey)), overwrite); err != nil {
		return err
	}
	if user == "" {
		return nil
	}
	return writeFileOnce(filepath.Join(dir, sshConfigFile), sshConfigText(host, port, user, key, knownHosts), overwrite)
}

// writeFileOnce writes name (0600), or with overwrite false creates it
// only if it is absent: of nodes starting together one writes it.
func writeFileOnce(name string, data []byte, overwrite bool) error {
	if overwrite {
		return os.WriteFile(name, data, 0o600)
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// sshConfigFile is an ssh_config with one Host entry, "replhost", that
// carries every option the printed command has: `ssh -F ROOT/ssh_config
// replhost`, `scp -F ...` and `sftp -F ...` work as they are pasted, and
// the entry can be copied into ~/.ssh/config.
const sshConfigFile = "ssh_config"

func sshConfigText(host, port, user, key, knownHosts string) []byte {
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	text := fmt.Sprintf("# Written by replhost on first start; copy into ~/.ssh/config to use it without -F.\n"+
		"Host replhost\n  HostName %s\n  Port %s\n  User %s\n  IdentityFile %s\n  IdentitiesOnly yes\n  UserKnownHostsFile %s\n",
		host, port, user, abs(key), abs(knownHosts))
	return []byte(text)
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
