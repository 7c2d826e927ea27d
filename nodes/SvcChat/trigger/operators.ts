// The trigger's operator events: their parameters, the statuses they remember between polls, and the diff they emit.
import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';

import { svcRequest, readCredentials } from '../transport/request';
import {
	listLocator,
	OPERATOR_BY_EMAIL,
	OPERATOR_BY_ID,
	OPERATOR_ROLE_OPTIONS,
	OPERATOR_STATUS_OPTIONS,
} from '../descriptions/parameterBlocks';
import { isPlainObject, showValue } from '../helpers/values';
import { EMAIL_SHAPE, pollParameters } from '../parameters';
import type { OperatorEvent } from './description';
import { isTextList, OPERATOR_STATE_KEY, serverBinding } from './poll';

const forEvents = (...emit: OperatorEvent[]) => ({ show: { emit } });

export const operatorProperties: INodeProperties[] = [
	{
		displayName: 'Operators',
		name: 'operators',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Operator',
		default: {},
		description: 'Only changes of these operators; none means every operator',
		displayOptions: forEvents('operatorStatusChanged'),
		options: [
			{
				displayName: 'Operator',
				name: 'operator',
				values: [
					listLocator(
						{
							displayName: 'Operator',
							name: 'operator',
							description: 'An operator whose changes start the workflow',
							searchListMethod: 'searchOperators',
						},
						OPERATOR_BY_EMAIL,
						OPERATOR_BY_ID,
					),
				],
			},
		],
	},
	{
		displayName: 'To Status',
		name: 'toStatuses',
		type: 'multiOptions',
		options: OPERATOR_STATUS_OPTIONS,
		default: [],
		description:
			'Only changes to one of these statuses; none means any change. For a status that is not listed, switch to an expression and give a list such as ["online", "busy"]: one that gives none fails the poll.',
		displayOptions: forEvents('operatorStatusChanged'),
	},
	{
		displayName: 'Available Statuses',
		name: 'availableStatuses',
		type: 'multiOptions',
		options: OPERATOR_STATUS_OPTIONS,
		default: ['online'],
		description:
			'The statuses in which an operator counts as available. For a status that is not listed, switch to an expression.',
		displayOptions: forEvents('operatorAvailabilityChanged'),
	},
	{
		displayName: 'Roles',
		name: 'roles',
		type: 'multiOptions',
		options: OPERATOR_ROLE_OPTIONS,
		default: [],
		description:
			'Only operators with at least one of these roles (for example Operator, to leave out administrators who never take chats); none means every operator, but an expression that gives none fails the poll',
		displayOptions: forEvents('operatorAvailabilityChanged', 'operatorStatusChanged'),
	},
];

/** An operator as the items show it (spec 2.2): a status or roles of another type count as none. */
const describe = (operator: IDataObject) => ({
	id: operator.id as number | string,
	email: operator.email ?? null,
	full_name: operator.full_name ?? null,
	roles: Array.isArray(operator.roles) ? operator.roles.filter((r) => typeof r === 'string') : [],
	status: typeof operator.status === 'string' ? operator.status : null,
});

type OperatorItem = ReturnType<typeof describe>;
type SeenOperator = Pick<OperatorItem, 'id' | 'status' | 'roles'>;

/**
 * The operator events' state: of each operator only what the events compare (no email or name), and the ids the
 * Operators filter chose at that poll, so one who is gone is still known.
 */
type OperatorState = {
	event: string;
	boundTo: string; // the server and account the statuses were read from
	operators: SeenOperator[];
	chosenIds?: string[];
	checkedAt?: string; // when the poll that read these statuses began; none in states saved before it existed
};

/** Whether `value` is the state of `event` (an edit to the event starts the recording again). */
const isStateOf = (value: unknown, event: OperatorEvent): value is OperatorState =>
	isPlainObject(value) &&
	value.event === event &&
	typeof value.boundTo === 'string' &&
	Array.isArray(value.operators) &&
	value.operators.every(
		(one) =>
			isPlainObject(one) &&
			['number', 'string'].includes(typeof one.id) &&
			(typeof one.status === 'string' || one.status === null) &&
			isTextList(one.roles),
	) &&
	(value.chosenIds === undefined || isTextList(value.chosenIds)) &&
	(value.checkedAt === undefined || typeof value.checkedAt === 'string');

type OperatorSettings = Record<'roles' | 'availableStatuses' | 'toStatuses' | 'wanted', string[]>;

function readOperatorSettings(context: IPollFunctions, event: OperatorEvent): OperatorSettings {
	const read = pollParameters(context, operatorProperties);
	const roles = read.filterList('roles');
	if (event === 'operatorAvailabilityChanged') {
		const availableStatuses = read.list('availableStatuses');
		if (!availableStatuses.length)
			throw read.fail(
				`'${read.label('availableStatuses')}' is empty`,
				'Choose the statuses in which an operator takes chats, e.g. Online.',
			);
		return { roles, availableStatuses, toStatuses: [], wanted: [] };
	}
	// From List and By ID give an ID, By Email an email: told apart by the @, so expressions may give either.
	const wanted = read.rows('operators.operator').map((row, index) => {
		const value = isPlainObject(row.operator) ? row.operator.value : row.operator;
		const text = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
		const problem = text ? `is neither an email nor an ID (${showValue(text)})` : 'has no operator';
		if (!/^\d+$/.test(text) && !EMAIL_SHAPE.test(text))
			throw read.fail(
				`'${read.label('operators.operator')}', entry ${index + 1} ${problem}`,
				'Pick the operator from the list, enter their email or ID, or remove the entry.',
			);
		return text.toLowerCase();
	});
	return { roles, availableStatuses: [], toStatuses: read.filterList('toStatuses'), wanted };
}

/** A filter left empty lets every value through. */
const allows = (filter: string[], ...values: unknown[]) =>
	!filter.length || values.some((value) => filter.includes(value as string));

const isAvailable = (operator: SeenOperator, settings: OperatorSettings) =>
	settings.availableStatuses.includes(operator.status as string) &&
	allows(settings.roles, ...operator.roles);

/** What the Operators filter may name an operator by: the ID, or the email in any case. */
const namesOf = ({ id, email }: OperatorItem) => [String(id), String(email ?? '').toLowerCase()];

/** Whether a Status Changed item passes the filters: Operators (or the ids it chose before), To Status and Roles. */
const passes = (item: OperatorItem, settings: OperatorSettings, chosenBefore: string[] = []) =>
	(allows(settings.wanted, ...namesOf(item)) || chosenBefore.includes(String(item.id))) &&
	allows(settings.toStatuses, item.status) &&
	allows(settings.roles, ...item.roles);

/** The Status Changed items from the remembered statuses to the current ones, filtered as the settings say. */
function statusChanges(stored: OperatorState, current: OperatorItem[], settings: OperatorSettings) {
	const previous = new Map(stored.operators.map((one) => [String(one.id), one]));
	const changed = current.flatMap((now) => {
		const was = previous.get(String(now.id));
		previous.delete(String(now.id));
		return was?.status === now.status ? [] : [{ ...now, previous_status: was ? was.status : null }];
	});
	// Those left were there at the last poll and are gone now: the filter knows them by the ids it chose then.
	const gone = [...previous.values()].map((one) => ({
		...describe({ id: one.id, roles: one.roles }),
		previous_status: one.status,
	}));
	return [
		...changed.filter((item) => passes(item, settings)),
		...gone.filter((item) => passes(item, settings, stored.chosenIds)),
	];
}

/** One poll of an operator event: a first, edited or moved state records and emits nothing; a good read saves it. */
export async function pollOperators(context: IPollFunctions, event: OperatorEvent, endBy?: number) {
	const settings = readOperatorSettings(context, event);
	const credentials = await readCredentials(context);
	const checkedAt = new Date(Date.now()).toISOString(); // before the request: never later than what it read
	// An element without an id (not the spec's shape) cannot be followed from poll to poll; it is left out.
	const operators = (await svcRequest(context, 'operators', { credentials, endBy }))
		.filter((one) => isPlainObject(one) && ['number', 'string'].includes(typeof one.id))
		.map(describe);
	const available = operators.filter((one) => isAvailable(one, settings));
	const count = available.length;
	const availability = { available: count > 0, count, operators: available };
	let items: IDataObject[] = [];
	let changedAfter: string | null = checkedAt; // Fetch Test Event: the earlier state is the one read now

	if (context.getMode() === 'manual') {
		// Fetch Test Event: a sample to map fields from; with filters that match nobody, every operator rather than none.
		const all = operators.map((one) => ({ ...one, previous_status: one.status }));
		const matching = all.filter((item) => passes(item, settings));
		if (event === 'operatorAvailabilityChanged') items = [availability];
		else items = matching.length ? matching : all;
	} else {
		const staticData = context.getWorkflowStaticData('node');
		const stored = staticData[OPERATOR_STATE_KEY];
		const known = isStateOf(stored, event);
		const { boundTo, moved } = serverBinding(credentials, known ? stored : {});
		const wasAvailable = known && stored.operators.some((one) => isAvailable(one, settings));
		changedAfter = known ? (stored.checkedAt ?? null) : null;
		if (moved) context.logger.warn(`Svc Chat Trigger: ${moved}; recording the operators again`);
		else if (known && event === 'operatorStatusChanged')
			items = statusChanges(stored, operators, settings);
		else if (known && wasAvailable !== availability.available) items = [availability];
		const seen = operators.map(({ id, status, roles }) => ({ id, status, roles }));
		const next: OperatorState = { event, boundTo, operators: seen, checkedAt };
		const chosen = operators.filter((one) => allows(settings.wanted, ...namesOf(one)));
		if (settings.wanted.length) next.chosenIds = chosen.map(({ id }) => String(id));
		// Written at every good poll. n8n may save it only at a later poll that emits, or not before a restart: the saved
		// checkedAt is then an earlier poll's, a looser bound but never a later one.
		staticData[OPERATOR_STATE_KEY] = next;
	}
	const stamp = { changed_after: changedAfter, detected_at: new Date(Date.now()).toISOString() };
	const stamped = items.map((item) => ({ ...item, ...stamp }));
	return stamped.length ? [context.helpers.returnJsonArray(stamped)] : null;
}
