package sftpd

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkOpenSSHPut uploads 64 MiB with OpenSSH's sftp client (no ssh:
// sftp -D) into this package's server and into OpenSSH's own sftp-server,
// so the two servers compare without the transport's cost. Ours also
// hashes and fsyncs each upload.
func BenchmarkOpenSSHPut(b *testing.B) {
	root, env := openssh(b, "sftp")
	data := make([]byte, 64<<20)
	rand.NewChaCha8([32]byte{9}).Read(data)
	src := filepath.Join(b.TempDir(), "big.bin")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		b.Fatal(err)
	}
	servers := []struct{ name, program, dest string }{
		{"replhost", os.Args[0], "/a1/classes/src/big/big.bin"},
		{"openssh-sftp-server", "/usr/lib/openssh/sftp-server", filepath.Join(b.TempDir(), "big.bin")},
	}
	for _, srv := range servers {
		b.Run(srv.name, func(b *testing.B) {
			if _, err := os.Stat(srv.program); err != nil {
				b.Skip(err)
			}
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				cmd := exec.Command("sftp", "-b", "-", "-D", srv.program)
				cmd.Env, cmd.Stdin = env, strings.NewReader("put "+src+" "+srv.dest+"\n")
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v\n%s", err, out)
				}
			}
		})
	}
	got, _ := os.ReadFile(filepath.Join(root, "a1/classes/src/big/big.bin"))
	if !bytes.Equal(got, data) {
		b.Errorf("got %d bytes; want the %d sent", len(got), len(data))
	}
}
