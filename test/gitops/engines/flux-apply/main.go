// flux-apply applies a kustomization's built objects (the output of `kustomize build`, on stdin)
// as Flux's kustomize-controller applies a Kustomization with `wait: true`, `force: false`,
// one reconcile: the same github.com/fluxcd/pkg/ssa calls with the same options
// (internal/controller/kustomization_controller.go, apply and checkHealth). It prints one JSON
// line per object ({"subject", "action"}) and exits 1 with the error when the apply or the health
// check fails, as the Kustomization's Ready condition would say.
//
// usage: kustomize build dist | flux-apply --kubeconfig <file> [--timeout 5m]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/polling"
	"github.com/fluxcd/cli-utils/pkg/kstatus/polling/engine"
	runtimeClient "github.com/fluxcd/pkg/runtime/client"
	"github.com/fluxcd/pkg/runtime/statusreaders"
	"github.com/fluxcd/pkg/ssa"
	"github.com/fluxcd/pkg/ssa/normalize"
	ssautil "github.com/fluxcd/pkg/ssa/utils"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// As kustomize-controller's main.go and its API group name them.
const (
	controllerName = "kustomize-controller"
	group          = "kustomize.toolkit.fluxcd.io"
	concurrentSSA  = 4
)

func main() {
	// A flag set of its own: controller-runtime registers its own --kubeconfig on the default one.
	flags := flag.NewFlagSet("flux-apply", flag.ExitOnError)
	kubeconfig := flags.String("kubeconfig", "", "the cluster's kubeconfig")
	timeout := flags.Duration("timeout", 5*time.Minute, "the Kustomization's spec.timeout: how long the health check waits")
	name := flags.String("name", "cdk8s-operators", "the Kustomization's name, in the owner labels")
	namespace := flags.String("namespace", "flux-system", "the Kustomization's namespace, in the owner labels")
	_ = flags.Parse(os.Args[1:])
	if err := run(*kubeconfig, *timeout, *name, *namespace); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(kubeconfig string, timeout time.Duration, name, namespace string) error {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	mapper, err := runtimeClient.NewDynamicRESTMapper(config)
	if err != nil {
		return err
	}
	kubeClient, err := client.New(config, client.Options{Mapper: mapper})
	if err != nil {
		return err
	}
	// getClientAndPoller: kstatus with Flux's own reader for Jobs.
	poller := polling.NewStatusPoller(kubeClient, mapper, polling.Options{
		CustomStatusReaders: []engine.StatusReader{statusreaders.NewCustomJobStatusReader(mapper)},
	})

	objects, err := ssautil.ReadObjects(os.Stdin)
	if err != nil {
		return fmt.Errorf("reading the built objects: %w", err)
	}
	manager := ssa.NewResourceManager(kubeClient, poller, ssa.Owner{Field: controllerName, Group: group})
	manager.SetOwnerLabels(objects, name, namespace)
	manager.SetConcurrency(concurrentSSA)

	ctx, cancel := context.WithTimeout(context.Background(), timeout+5*time.Minute)
	defer cancel()
	changeSet, applyErr := apply(ctx, manager, objects)
	if changeSet != nil {
		for _, entry := range changeSet.Entries {
			line, _ := json.Marshal(map[string]string{"subject": entry.Subject, "action": string(entry.Action)})
			fmt.Println(string(line))
		}
	}
	if applyErr != nil {
		return applyErr
	}
	return checkHealth(ctx, manager, changeSet, timeout)
}

// apply is the controller's apply with a Kustomization's defaults (no force, no ignore rules,
// no common metadata, no feature gates).
func apply(ctx context.Context, manager *ssa.ResourceManager, objects []*unstructured.Unstructured) (*ssa.ChangeSet, error) {
	if err := normalize.UnstructuredList(objects); err != nil {
		return nil, err
	}
	applyOpts := ssa.DefaultApplyOptions()
	applyOpts.Force = false
	applyOpts.ExclusionSelector = map[string]string{
		group + "/reconcile": "disabled",
		group + "/ssa":       "Ignore",
	}
	applyOpts.IfNotPresentSelector = map[string]string{group + "/ssa": "IfNotPresent"}
	applyOpts.ForceSelector = map[string]string{group + "/force": "enabled"}
	applyOpts.Cleanup = ssa.ApplyCleanupOptions{
		Annotations: []string{corev1.LastAppliedConfigAnnotation, group + "/checksum", "fluxcd.io/sync-checksum"},
		Labels:      []string{"fluxcd.io/sync-gc-mark"},
		FieldManagers: []ssa.FieldManager{
			{Name: "kubectl", OperationType: metav1.ManagedFieldsOperationApply},
			{Name: "kubectl", OperationType: metav1.ManagedFieldsOperationUpdate},
			{Name: "before-first-apply", OperationType: metav1.ManagedFieldsOperationUpdate},
			{Name: controllerName, OperationType: metav1.ManagedFieldsOperationUpdate},
		},
		Exclusions: map[string]string{group + "/ssa": "Merge"},
	}
	return manager.ApplyAllStaged(ctx, objects, applyOpts)
}

// checkHealth waits as `wait: true` does: every applied object but the skipped ones, kstatus
// Current, polled every 5 s, failing fast on a Failed one.
func checkHealth(ctx context.Context, manager *ssa.ResourceManager, changeSet *ssa.ChangeSet, timeout time.Duration) error {
	toCheck := ssa.NewChangeSet()
	for _, entry := range changeSet.Entries {
		if entry.Action != ssa.SkippedAction {
			toCheck.Add(entry)
		}
	}
	if err := manager.WaitForSetWithContext(ctx, toCheck.ToObjMetadataSet(), ssa.WaitOptions{
		Interval: 5 * time.Second,
		Timeout:  timeout,
		FailFast: true,
	}); err != nil {
		return fmt.Errorf("health check failed: %w", err)
	}
	return nil
}
