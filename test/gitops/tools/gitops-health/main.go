// gitops-health judges Kubernetes objects the way the GitOps tools do, with their own code:
//
//	gitops-health lua <health.lua>   Argo CD: the script runs in gopher-lua (the Lua engine Argo CD
//	                                 embeds) set up as Argo CD sets up a health customization: only
//	                                 the package, base and table libraries, the object as the
//	                                 global `obj`, a one-second limit, and a table with status and
//	                                 message as the answer.
//	gitops-health kstatus            Flux (`wait: true`, health checks) and `kubectl wait`:
//	                                 sigs.k8s.io/cli-utils' kstatus, status.Compute.
//
// Objects come on stdin as one JSON array; the answers go to stdout as a JSON array of
// {"status": ..., "message": ...} in the same order. An object the tool cannot judge gets
// {"error": ...} instead, so one bad object does not hide the others' answers.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	lua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type answer struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

func main() {
	if len(os.Args) < 2 || (os.Args[1] == "lua" && len(os.Args) != 3) || (os.Args[1] != "lua" && os.Args[1] != "kstatus") {
		fmt.Fprintln(os.Stderr, "usage: gitops-health lua <health.lua> < objects.json\n       gitops-health kstatus < objects.json")
		os.Exit(2)
	}
	objects, err := readObjects(os.Stdin)
	if err != nil {
		fail(err)
	}
	judge := computeKstatus
	if os.Args[1] == "lua" {
		script, err := os.ReadFile(os.Args[2])
		if err != nil {
			fail(err)
		}
		judge = func(u *unstructured.Unstructured) answer { return runHealthLua(u, string(script)) }
	}
	answers := make([]answer, 0, len(objects))
	for _, object := range objects {
		answers = append(answers, judge(object))
	}
	if err := json.NewEncoder(os.Stdout).Encode(answers); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gitops-health:", err)
	os.Exit(1)
}

// readObjects decodes as the API machinery does for unstructured objects (integers are int64),
// which is what both tools are handed.
func readObjects(r io.Reader) ([]*unstructured.Unstructured, error) {
	var raw []json.RawMessage
	if err := json.NewDecoder(r).Decode(&raw); err != nil {
		return nil, fmt.Errorf("stdin: expected a JSON array of objects: %w", err)
	}
	objects := make([]*unstructured.Unstructured, 0, len(raw))
	for i, item := range raw {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(item); err != nil {
			return nil, fmt.Errorf("object %d: %w", i, err)
		}
		objects = append(objects, u)
	}
	return objects, nil
}

func computeKstatus(u *unstructured.Unstructured) answer {
	result, err := status.Compute(u)
	if err != nil {
		return answer{Error: err.Error()}
	}
	return answer{Status: result.Status.String(), Message: result.Message}
}

// Argo CD's valid health codes; anything else it shows as Unknown.
var healthCodes = map[string]bool{"Unknown": true, "Progressing": true, "Suspended": true, "Healthy": true, "Degraded": true, "Missing": true}

func runHealthLua(u *unstructured.Unstructured, script string) answer {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.LoadLibName, lua.OpenPackage}, {lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			return answer{Error: err.Error()}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", toLua(l, u.Object))
	if err := l.DoString(script); err != nil {
		return answer{Error: err.Error()}
	}
	returned, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		return answer{Error: fmt.Sprintf("expect table output from Lua script, not %s", l.Get(-1).Type())}
	}
	result := answer{Status: luaString(returned.RawGetString("status")), Message: luaString(returned.RawGetString("message"))}
	if !healthCodes[result.Status] {
		return answer{Status: "Unknown", Message: "Lua returned an invalid health status"}
	}
	return result
}

func luaString(v lua.LValue) string {
	if v == lua.LNil {
		return ""
	}
	return v.String()
}

// toLua converts an unstructured value as Argo CD does: maps and lists become tables, numbers
// (int64 from the API machinery, or float64) Lua numbers.
func toLua(l *lua.LState, value interface{}) lua.LValue {
	switch v := value.(type) {
	case bool:
		return lua.LBool(v)
	case string:
		return lua.LString(v)
	case int64:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case json.Number:
		return lua.LString(v)
	case []interface{}:
		table := l.CreateTable(len(v), 0)
		for _, item := range v {
			table.Append(toLua(l, item))
		}
		return table
	case map[string]interface{}:
		table := l.CreateTable(0, len(v))
		for key, item := range v {
			table.RawSetH(lua.LString(key), toLua(l, item))
		}
		return table
	}
	return lua.LNil
}
