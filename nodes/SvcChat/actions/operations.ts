// Every resource of the Svc Chat node, by value: the node's description and the router both read this one list.
import type { SvcResource } from './operation';
import { department } from './department/Department.resource';

export const resources: Record<string, SvcResource> = {
	department,
};

export const operations = Object.fromEntries(
	Object.entries(resources).map(([name, resource]) => [name, resource.operations]),
);
