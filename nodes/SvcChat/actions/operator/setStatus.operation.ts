// Operator > Set Status: POST rt/agent_status (spec 4.2); an unmet condition is a skipped item, a refusal says why.
import type { IDataObject, IExecuteFunctions, INodeProperties, NodeApiError } from 'n8n-workflow';

import { svcRequest } from '../../transport/request';
import { svcCodeNote } from '../../transport/errors';
import { itemParameters } from '../../parameters';
import {
	listLocator,
	OPERATOR_BY_EMAIL,
	OPERATOR_STATUS_OPTIONS,
	optionsCollection,
} from '../../descriptions/parameterBlocks';

export const properties: INodeProperties[] = [
	listLocator(
		{
			displayName: 'Operator',
			name: 'email',
			description: 'The operator whose status to set',
			searchListMethod: 'searchOperatorEmails',
		},
		OPERATOR_BY_EMAIL,
	),
	{
		displayName: 'Status',
		name: 'status',
		type: 'options',
		options: OPERATOR_STATUS_OPTIONS,
		default: 'online',
		required: true,
		description:
			'The status to set. To send a status that is not listed, switch to an expression and type it. An operator who is offline cannot be brought back by this command.',
	},
	optionsCollection([
		{
			displayName: 'Force',
			name: 'force',
			type: 'boolean',
			default: false,
			description:
				'Whether to set the status even where system restrictions (such as the allowed online time) would refuse it',
		},
		{
			displayName: 'Only if Current Status Is',
			name: 'initialStatuses',
			type: 'multiOptions',
			options: OPERATOR_STATUS_OPTIONS,
			default: [],
			description:
				"Change the status only if the operator is currently in one of these statuses; otherwise nothing changes and the item says result 'skipped' with the current status",
		},
	]),
];

const UNKNOWN_OUTCOME_NOTE =
	"The outcome is unknown: the status may already have changed. It was not retried, because with 'Only if Current Status Is' a second attempt would then not meet its condition and be skipped. Check the operator's status (Get many operators) before trying again.";

export async function execute(this: IExecuteFunctions, itemIndex: number) {
	const read = itemParameters(this, itemIndex, properties);
	const email = read.email('email', {
		fix: 'Pick the operator from the list, or enter their email.',
	});
	const status = read.requiredText('status', { fix: 'Choose a status, e.g. online.' });
	read.modelChoice('status', status, 'statuses');
	const { force, initialStatuses: initial } = read.collection('options');
	const body: IDataObject = { email, status };
	if (force === true) body.force = true;
	if (initial !== undefined) {
		if (!Array.isArray(initial) || initial.some((value) => typeof value !== 'string' || !value)) {
			throw read.fail(
				`'${read.label('options.initialStatuses')}' must be a list of statuses`,
				'Choose one or more statuses, or remove the option.',
			);
		}
		if (initial.length) body.condition = { initial_statuses: initial };
	}
	// With a condition, a retry after a change that did go through would not meet it (condition-not-satisfied) and
	// report a skip for a change that happened; so such a request is sent once, and a lost reply is called unknown.
	const notRetried = body.condition ? UNKNOWN_OUTCOME_NOTE : undefined;
	const refusal = await svcRequest(this, 'rt/agent_status', { body, itemIndex, notRetried }).then(
		() => undefined,
		(error: NodeApiError) => error,
	);
	if (!refusal) return [{ result: 'ok', email, status }];
	const code = refusal.context?.svcError;
	if (code !== 'condition-not-satisfied' && code !== 'agent-status-not-allowed') throw refusal;
	// The refusal does not say the current status: one GET /operators does (null when it cannot tell).
	const operators = await svcRequest(this, 'operators', { itemIndex }).catch(() => []);
	const lower = email.toLowerCase();
	const current = operators.find((one) => String(one.email).toLowerCase() === lower)?.status;
	if (code === 'condition-not-satisfied')
		return [{ result: 'skipped', email, status, current_status: current ?? null }];
	// agent-status-not-allowed names two causes (errors.ts); the operator list tells when it is this one.
	if (current === 'offline')
		Object.assign(refusal, {
			message:
				'This operator is offline, and Set operator status cannot change an offline operator',
			description: `Nothing was changed. The operator must log in to Svc themselves first. ${svcCodeNote(code)}`,
		});
	throw refusal;
}
