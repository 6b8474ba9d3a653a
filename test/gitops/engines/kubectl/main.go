// kubectl as k8s.io/kubernetes/cmd/kubectl builds it (the same main, over the same
// k8s.io/kubectl release), so the tests run the real `kubectl apply --server-side -k` without
// needing the whole k8s.io/kubernetes module. The auth plugins are left out: the tests' kubeconfigs hold a token.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	logs.GlogSetter(cmd.GetLogVerbosity(os.Args)) // nolint:errcheck
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
}
