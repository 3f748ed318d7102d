import { ValidationService } from '@tsoa/runtime';

/**
 * tsoa 6.6 names the elements of an array nested in another value after the array alone: an element
 * error of body.rules[1].allowedOrigins[0] comes out as "allowedOrigins.$0", because validateArray
 * hands its elements `name + '.'` as their parent and drops its own parent. Folding the parent into
 * the name before delegating gives the elements their full path; the array's own errors are keyed
 * `parent + name` either way. Applied once, when the control app is first built.
 */
let applied = false;

export function fixNestedArrayFieldPaths(): void {
  if (applied) return;
  applied = true;
  const validateArray = ValidationService.prototype.validateArray;
  ValidationService.prototype.validateArray = function (
    name,
    value,
    fieldErrors,
    isBodyParam,
    schema,
    validators,
    parent = '',
  ) {
    return validateArray.call(this, parent + name, value, fieldErrors, isBodyParam, schema, validators, '');
  };
}

/**
 * tsoa 6.6 compares an enum (string-literal union) value with the members after String(): an array
 * `["admin"]` or a value like `{ toString }` passes as "admin", whatever `bodyCoercion: false` says.
 * A JSON array or object is never a member, so it is refused with tsoa's own message before the
 * comparison. Applied once, when the control app is first built.
 */
let enumsApplied = false;

export function refuseCompositeEnumValues(): void {
  if (enumsApplied) return;
  enumsApplied = true;
  const validateEnum = ValidationService.prototype.validateEnum;
  ValidationService.prototype.validateEnum = function (name, value, fieldErrors, members, parent = '') {
    if (typeof value === 'object' && value !== null) {
      const allowed = (members ?? []).map((member) =>
        typeof member === 'string' ? `'${member}'` : String(member),
      );
      fieldErrors[parent + name] = {
        message: `should be one of the following; [${allowed.join(',')}]`,
        value,
      };
      return undefined;
    }
    return validateEnum.call(this, name, value, fieldErrors, members, parent);
  };
}
