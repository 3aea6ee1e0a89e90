package io.inlet.benchmarks;

import io.inlet.core.util.MiniJson;

import java.util.LinkedHashMap;
import java.util.Map;

/** What one trial measured, passed from the trial's JVM to the runner as one JSON line. */
final class Result {

    static final String PREFIX = "INLET-BENCH-RESULT ";

    final Map<String, Object> values = new LinkedHashMap<>();

    Result put(String key, Object value) {
        values.put(key, value);
        return this;
    }

    double number(String key) {
        Object v = values.get(key);
        return v instanceof Number ? ((Number) v).doubleValue() : Double.NaN;
    }

    String text(String key) {
        Object v = values.get(key);
        return v == null ? null : String.valueOf(v);
    }

    String toLine() {
        StringBuilder sb = new StringBuilder(PREFIX).append('{');
        values.forEach((k, v) -> {
            if (sb.charAt(sb.length() - 1) != '{') {
                sb.append(", ");
            }
            sb.append(MiniJson.quote(k)).append(": ");
            if (v instanceof Number || v instanceof Boolean) {
                sb.append(
                        v instanceof Double && (((Double) v).isNaN() || ((Double) v).isInfinite())
                                ? "null"
                                : v.toString());
            } else {
                sb.append(v == null ? "null" : MiniJson.quote(String.valueOf(v)));
            }
        });
        return sb.append('}').toString();
    }

    /** The last result line of a trial's output, or null when the trial printed none (it failed). */
    static Result last(java.util.List<String> lines) {
        return lines.stream()
                .filter(l -> l.startsWith(PREFIX))
                .reduce((x, y) -> y)
                .map(Result::parse)
                .orElse(null);
    }

    static Result parse(String line) {
        Result r = new Result();
        Object parsed = MiniJson.parse(line.substring(line.indexOf(PREFIX) + PREFIX.length()));
        ((Map<?, ?>) parsed).forEach((k, v) -> r.values.put(String.valueOf(k), v));
        return r;
    }
}
