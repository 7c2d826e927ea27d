// The "Svc Chat" action node: its description is assembled from the resources; execution goes to the router.
import { NodeConnectionTypes, updateDisplayOptions } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INodeProperties,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { router } from './actions/router';
import { operationSubtitle, operations, resourceSelector, selectors } from './actions/resources';
import { searchChats, searchOperatorEmails, searchOperators } from './descriptions/listSearch';
import { SVC_CHAT_DESCRIPTION } from './descriptions/nodeDescriptions';
import { testSvcCredentials } from './transport/request';

/** What the model reads per operation: its option's description (n8n's own says only "Get chat in Svc Chat"). */
const toolDescription: INodeProperties = {
	displayName: 'Tool Description',
	name: 'toolDescription',
	type: 'string',
	typeOptions: { rows: 3 },
	default: '',
	description:
		'What the model reads about this tool; by default what the operation does and returns',
};
const toolDescriptions = (): INodeProperties[] =>
	Object.entries(selectors).flatMap(([resource, selector]) =>
		(selector.options as INodePropertyOptions[]).map(({ value, description }) => ({
			...toolDescription,
			default: description,
			displayOptions: { show: { '@tool': [true], resource: [resource], operation: [value] } },
		})),
	);

export class SvcChat implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Svc Chat',
		name: 'svcChat',
		icon: { light: 'file:svc.svg', dark: 'file:svc.dark.svg' },
		group: ['transform'],
		// Version 2 changes only what Remove Token returns ({ deleted: true }); version 1 workflows keep { removed: true }.
		version: [1, 2],
		defaultVersion: 2,
		// n8n names the node after its action ("Set operator status"); this names the resource and operation.
		subtitle: operationSubtitle,
		description: SVC_CHAT_DESCRIPTION,
		defaults: { name: 'Svc Chat' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'svcApi', required: true, testedBy: 'testSvcCredentials' }],
		properties: [
			...toolDescriptions(),
			resourceSelector,
			...Object.entries(selectors).flatMap(([resource, selector]) => [
				{ ...selector, displayOptions: { show: { resource: [resource] } } },
				...Object.entries(operations[resource]).flatMap(([operation, { properties }]) =>
					updateDisplayOptions(
						{ show: { resource: [resource], operation: [operation] } },
						properties,
					),
				),
			]),
		],
	};

	methods = {
		listSearch: { searchChats, searchOperatorEmails, searchOperators },
		credentialTest: { testSvcCredentials },
	};

	async execute(this: IExecuteFunctions) {
		return await router.call(this, operations);
	}
}
