import { KindConstructs } from '../../engine/kind';
import { defaultMasqueradeUrl, RegistryMirrorSpec } from './api';
import { RegistryMirrorCache } from './cache';
import { RegistryMirrorObservation } from './controller';
import { registryMirrorExample } from './example';
import { mirrorNames } from './names';
import { RegistryMirrorsNamespace } from './namespace';
import { RegistryMirrorNodeConfig } from './node-config';

/** The RegistryMirror's constructs, loaded at their first use (see KindConstructs). */
export const registryMirrorConstructs: KindConstructs<RegistryMirrorSpec, RegistryMirrorObservation> = {
  example: registryMirrorExample,
  install: (scope) => {
    new RegistryMirrorsNamespace(scope, 'registry-mirrors-namespace');
  },
  render: (scope, resource, observation) => {
    // A refused mirror has no children: those it had (a node configuration among them) are removed.
    if (observation?.refusal) return;
    const names = mirrorNames(resource.metadata.name);
    const access = observation?.access ?? {};
    new RegistryMirrorCache(scope, 'cache', { names, spec: resource.spec, access });
    const { upstreamUrl, masqueradeUrl, priorityClass } = resource.spec;
    new RegistryMirrorNodeConfig(scope, 'node-config', { names, upstream: upstreamUrl, masquerade: masqueradeUrl ?? defaultMasqueradeUrl(upstreamUrl), priorityClass, pullSecret: access.pullSecret });
  },
};
