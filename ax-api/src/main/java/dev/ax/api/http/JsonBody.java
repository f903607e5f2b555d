package dev.ax.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.contract.AxJson;
import io.javalin.http.Context;
import java.util.Iterator;
import java.util.Set;

/**
 * A change's request body: one JSON object of known fields, its reason required. Anything else is
 * an {@link ApiException} {@code bad_request}. Immutable.
 */
final class JsonBody {

  private final ObjectNode fields;

  private JsonBody(ObjectNode fields) {
    this.fields = fields;
  }

  /**
   * The body of {@code ctx}, holding only {@code known} fields and a {@code reason}.
   *
   * @throws ApiException {@code bad_request} for anything else
   */
  static JsonBody of(Context ctx, Set<String> known) {
    String text = ctx.body();
    if (text.isBlank()) {
      throw ApiException.badRequest("a change needs a JSON body with its reason");
    }
    JsonNode body;
    try {
      body = AxJson.MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest("the body is not JSON: " + e.getOriginalMessage());
    }
    if (!(body instanceof ObjectNode object)) {
      throw ApiException.badRequest("the body must be one JSON object");
    }
    for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!known.contains(name)) {
        throw ApiException.badRequest("unknown field " + name + "; known: " + known);
      }
    }
    JsonBody parsed = new JsonBody(object);
    if (parsed.text("reason") == null) {
      throw ApiException.badRequest("a change needs a reason: {\"reason\": \"...\"}");
    }
    return parsed;
  }

  /** The reason given. */
  String reason() {
    return text("reason");
  }

  /** The string {@code field}, or null when absent or null. */
  String text(String field) {
    JsonNode value = fields.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isTextual()) {
      throw ApiException.badRequest(field + " must be a string");
    }
    return value.asText();
  }

  /** The object {@code field}, or null when absent or null. */
  ObjectNode object(String field) {
    JsonNode value = fields.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!(value instanceof ObjectNode object)) {
      throw ApiException.badRequest(field + " must be a JSON object");
    }
    return object;
  }

  /** The boolean {@code field}, or null when absent or null. */
  Boolean flag(String field) {
    JsonNode value = fields.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isBoolean()) {
      throw ApiException.badRequest(field + " must be true or false");
    }
    return value.booleanValue();
  }
}
