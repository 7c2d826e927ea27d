// fast-check arbitraries for what an expression or a hand-edited workflow can put in a parameter: any type, any size.
import fc from 'fast-check';
import { DateTime } from 'luxon';

/** Long enough to hurt (URLs, messages, excerpts), small enough for the sandbox's 10 MB request limit. */
const HUGE_LENGTH = 300_000;

// Built once: fast-check shares constants between runs, and the node must never change what it is given.
const HUGE_STRINGS = [
	'x'.repeat(HUGE_LENGTH),
	'€😀'.repeat(HUGE_LENGTH / 3),
	`${'9'.repeat(HUGE_LENGTH)}`,
];

export const emptyStrings = fc.constantFrom('', ' ', '\t\n', '\u00a0', '\u200b');

export const hugeStrings = fc.constantFrom(...HUGE_STRINGS);

/** Text that breaks naive code: control characters, lone surrogates, right-to-left marks, emoji, NUL. */
export const unicodeStrings = fc.oneof(
	fc.string({ unit: 'grapheme', maxLength: 40 }),
	fc.string({ unit: 'binary', maxLength: 40 }),
	fc.constantFrom(
		'\u0000',
		'\ud800',
		'\udfff',
		'\u202eevil',
		'é\u0301',
		'😀👩‍👩‍👧',
		'ＡＢＣ１２３',
		'<script>alert(1)</script>',
		'"\'\\`${x}',
		'%00%ff',
		'../../etc/passwd',
	),
);

export const weirdNumbers = fc.oneof(
	fc.integer({ min: -1_000_000_000, max: -1 }),
	fc.double(),
	fc.constantFrom(
		0,
		-0,
		0.5,
		-1,
		NaN,
		Infinity,
		-Infinity,
		Number.MAX_SAFE_INTEGER + 2,
		2 ** 64,
		1e308,
		-1e308,
		Number.MIN_VALUE,
	),
);

/** Cursors (microsecond last_ts) that look almost right. */
export const weirdCursors = fc.constantFrom(
	'-1',
	'1e21',
	'9'.repeat(25),
	'0x10',
	' 12 ',
	'１２３',
	'12.5',
	'+5',
	'0'.repeat(40),
	'18446744073709551616',
);

/** Dates that are not dates, or are out of any sensible range. */
export const invalidDates = fc.oneof(
	fc.constantFrom(
		'2024-02-30',
		'2024-13-01',
		'not a date',
		'0000-00-00',
		'31/12/2024',
		'2024-05-01T25:61:00Z',
		'+275760-09-13T00:00:00.001Z',
		'-000001-01-01T00:00:00Z',
		'9999-99-99T99:99:99',
		'1969-12-31T23:59:59Z',
	),
	fc.constant(null).map(() => new Date(Number.NaN)),
	fc.constant(null).map(() => DateTime.invalid('fuzzed')),
	fc.constantFrom(-1, 1e20, Number.NaN),
);

/** JSON text of every shape but an object, broken JSON, and objects whose keys are traps. */
export const weirdJsonTexts = fc.oneof(
	fc.constantFrom(
		'[]',
		'null',
		'"text"',
		'42',
		'true',
		'{',
		'{"a":',
		'{"a": undefined}',
		"{'a': 1}",
		'{"__proto__": {"polluted": "yes"}}',
		'{"constructor": "x", "toString": "y"}',
	),
	fc.json().filter((text) => !text.startsWith('{')),
	fc.object({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
);

/** Objects and lists where text or numbers belong, including keys that walk up the prototype chain. */
export const nestedValues = fc.oneof(
	fc.object({ maxDepth: 3, maxKeys: 4 }),
	fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 4 }),
	fc.constantFrom({}, [], [[]], [null], { toString: 'x' }, { length: -1 }, {
		__proto__: null,
	} as object),
	fc
		.constant(null)
		.map(
			() =>
				JSON.parse(
					'{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {}}}',
				) as object,
		),
);

const primitives = fc.oneof(fc.constantFrom(null, undefined, true, false), fc.bigInt());

/** Any wrong value, of any type; the catalogue adds values that are wrong for a given kind of field. */
export const anyHostileValue: fc.Arbitrary<unknown> = fc.oneof(
	emptyStrings,
	{ arbitrary: hugeStrings, weight: 1 },
	unicodeStrings,
	weirdNumbers,
	weirdCursors,
	invalidDates,
	nestedValues,
	primitives,
	fc.constant(null).map(() => DateTime.fromISO('2024-05-01T12:00:00Z', { zone: 'utc' })),
);
