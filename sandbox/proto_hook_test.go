package sandbox

import (
	"encoding/binary"
	"os"
	"reflect"
	"slices"

	"github.com/traefik/yaegi/interp"
)

// rawFramesArg makes a test worker offer the code the package
// "replhost.test/raw": what code that reached the protocol socket could
// do, to test the host against it.
const rawFramesArg = "-test-raw-frames"

// otherBuildArg makes a test worker claim another build in its handshake.
const otherBuildArg = "-test-other-build"

func init() {
	if os.Getenv(WorkerEnv) != "" && slices.Contains(os.Args, otherBuildArg) {
		buildID = func() string { return "another-build" }
	}
	if os.Getenv(WorkerEnv) == "" || !slices.Contains(os.Args, rawFramesArg) {
		return
	}
	workerTestHook = func(conn *os.File) interp.Exports {
		frame := func(typ byte, id uint32, payload string) {
			b := []byte{typ, 0, 0, 0, 0, 0, 0, 0, 0}
			binary.BigEndian.PutUint32(b[1:], id)
			binary.BigEndian.PutUint32(b[5:], uint32(len(payload)))
			conn.Write(append(b, payload...))
		}
		return interp.Exports{"replhost.test/raw/raw": {
			// Frame writes one frame, as the worker would.
			"Frame": reflect.ValueOf(frame),
			// Header writes a header that claims n bytes, and no payload.
			"Header": reflect.ValueOf(func(typ byte, id uint32, n uint32) {
				b := []byte{typ, 0, 0, 0, 0, 0, 0, 0, 0}
				binary.BigEndian.PutUint32(b[1:], id)
				binary.BigEndian.PutUint32(b[5:], n)
				conn.Write(b)
			}),
			// Bytes writes bytes as they are.
			"Bytes": reflect.ValueOf(func(s string) { conn.Write([]byte(s)) }),
		}}
	}
}
