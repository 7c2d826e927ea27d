// An object whose members are read, when used, from a value that a beforeAll sets: set-up helpers return one.
export function lateBound<T extends object, Extra extends object = object>(
	current: () => T,
	extra?: Extra,
): T & Extra {
	return new Proxy({} as T & Extra, {
		get: (_target, key) =>
			extra && key in extra ? Reflect.get(extra, key) : Reflect.get(current(), key),
	});
}
