package dev.caduceus.spi.message;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * One part of a message's content, after normalization of the wire formats. Immutable.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = ContentPart.Text.class, name = "text"),
        @JsonSubTypes.Type(value = ContentPart.ImageUrl.class, name = "image_url")})
public sealed interface ContentPart {

    /** Plain text. */
    record Text(String text) implements ContentPart {
        public Text { requireNonNull(text, "text"); }
    }

    /** An image by URL ({@code https:} or {@code data:}), with an optional detail hint. */
    record ImageUrl(String url, String detail) implements ContentPart {
        public ImageUrl { requireNonNull(url, "url"); }
    }
}
