package dev.retrysafe.servlet.internal;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A response that keeps everything (status, headers, cookies, body) in memory and sends nothing,
 * so that the filter can commit the transaction before the client sees a byte. Flushing does not
 * commit; {@code sendError} and {@code sendRedirect} only set the status (and {@code Location}) and
 * mark the response committed, without an error page. Not threadsafe, like any response.
 */
final class BufferedResponse extends HttpServletResponseWrapper {

    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

    private int status = SC_OK;
    /** Header values by lowercase name; each entry keeps the name as first set. */
    private final Map<String, Field> headers = new LinkedHashMap<>();

    private final List<Cookie> cookies = new ArrayList<>();
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private @Nullable String contentType;
    private @Nullable String characterEncoding;
    private @Nullable ServletOutputStream outputStream;
    private @Nullable PrintWriter writer;
    private boolean committed;
    private int bufferSize = 8192;
    private Locale locale = Locale.getDefault();

    private record Field(String name, List<String> values) {}

    BufferedResponse(HttpServletResponse response) {
        super(response);
    }

    // --- what the filter reads back -------------------------------------------------------------

    /** The body written so far (flushing a writer first). */
    byte[] bodyBytes() {
        if (writer != null) {
            writer.flush();
        }
        return body.toByteArray();
    }

    /** Every header set, content type included, as (name, value) pairs in order. */
    List<Map.Entry<String, String>> headerPairs() {
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        String type = getContentType();
        if (type != null) {
            pairs.add(Map.entry("Content-Type", type));
        }
        for (Field field : headers.values()) {
            for (String value : field.values()) {
                pairs.add(Map.entry(field.name(), value));
            }
        }
        return pairs;
    }

    List<Cookie> cookies() {
        return List.copyOf(cookies);
    }

    // --- status ----------------------------------------------------------------------------------

    @Override
    public void setStatus(int sc) {
        if (!committed) {
            status = sc;
        }
    }

    @Override
    public int getStatus() {
        return status;
    }

    @Override
    public void sendError(int sc) {
        sendError(sc, null);
    }

    @Override
    public void sendError(int sc, @Nullable String msg) {
        checkNotCommitted("sendError");
        status = sc;
        resetBuffer();
        committed = true;
    }

    @Override
    public void sendRedirect(String location) {
        sendRedirect(location, SC_FOUND, true);
    }

    @Override
    public void sendRedirect(String location, boolean clearBuffer) {
        sendRedirect(location, SC_FOUND, clearBuffer);
    }

    @Override
    public void sendRedirect(String location, int sc) {
        sendRedirect(location, sc, true);
    }

    @Override
    public void sendRedirect(String location, int sc, boolean clearBuffer) {
        checkNotCommitted("sendRedirect");
        status = sc;
        setHeader("Location", location);
        if (clearBuffer) {
            resetBuffer();
        }
        committed = true;
    }

    // --- headers ---------------------------------------------------------------------------------

    @Override
    public void setHeader(String name, @Nullable String value) {
        if (committed || specialHeader(name, value)) {
            return;
        }
        if (value == null) {
            headers.remove(key(name));
        } else {
            headers.put(key(name), new Field(name, new ArrayList<>(List.of(value))));
        }
    }

    @Override
    public void addHeader(String name, @Nullable String value) {
        if (committed || value == null || specialHeader(name, value)) {
            return;
        }
        headers.computeIfAbsent(key(name), k -> new Field(name, new ArrayList<>()))
                .values()
                .add(value);
    }

    @Override
    public void setIntHeader(String name, int value) {
        setHeader(name, Integer.toString(value));
    }

    @Override
    public void addIntHeader(String name, int value) {
        addHeader(name, Integer.toString(value));
    }

    @Override
    public void setDateHeader(String name, long date) {
        setHeader(name, HTTP_DATE.format(Instant.ofEpochMilli(date)));
    }

    @Override
    public void addDateHeader(String name, long date) {
        addHeader(name, HTTP_DATE.format(Instant.ofEpochMilli(date)));
    }

    @Override
    public boolean containsHeader(String name) {
        return key(name).equals("content-type") ? contentType != null : headers.containsKey(key(name));
    }

    @Override
    public @Nullable String getHeader(String name) {
        if (key(name).equals("content-type")) {
            return getContentType();
        }
        Field field = headers.get(key(name));
        return field == null ? null : field.values().get(0);
    }

    @Override
    public Collection<String> getHeaders(String name) {
        if (key(name).equals("content-type")) {
            String type = getContentType();
            return type == null ? List.of() : List.of(type);
        }
        Field field = headers.get(key(name));
        return field == null ? List.of() : List.copyOf(field.values());
    }

    @Override
    public Collection<String> getHeaderNames() {
        List<String> names = new ArrayList<>();
        if (contentType != null) {
            names.add("Content-Type");
        }
        headers.values().forEach(field -> names.add(field.name()));
        return names;
    }

    @Override
    public void addCookie(Cookie cookie) {
        if (!committed) {
            cookies.add(cookie);
        }
    }

    /** Content-Type goes to its own field; lengths are computed when sending, so they are dropped. */
    private boolean specialHeader(String name, @Nullable String value) {
        String key = key(name);
        if (key.equals("content-type")) {
            setContentType(value);
            return true;
        }
        return key.equals("content-length") || key.equals("transfer-encoding");
    }

    private static String key(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    // --- content type and encoding --------------------------------------------------------------

    @Override
    public void setContentType(@Nullable String type) {
        if (committed || writer != null && type != null && charsetParameter(type) != null) {
            return; // after getWriter the encoding is fixed, as in a container
        }
        contentType = type;
        if (type != null) {
            String charset = charsetParameter(type);
            if (charset != null) {
                characterEncoding = charset;
            }
        }
    }

    @Override
    public @Nullable String getContentType() {
        if (contentType == null) {
            return null;
        }
        if (characterEncoding != null && charsetParameter(contentType) == null && isTextual(contentType)) {
            return contentType + ";charset=" + characterEncoding;
        }
        return contentType;
    }

    @Override
    public void setCharacterEncoding(@Nullable String charset) {
        if (!committed && writer == null) {
            characterEncoding = charset;
        }
    }

    @Override
    public void setCharacterEncoding(Charset charset) {
        setCharacterEncoding(charset.name());
    }

    @Override
    public String getCharacterEncoding() {
        // JSON APIs are UTF-8; the servlet default of ISO-8859-1 would corrupt them
        return characterEncoding != null ? characterEncoding : StandardCharsets.UTF_8.name();
    }

    @Override
    public void setContentLength(int len) {
        // computed from the buffered body when the response is sent
    }

    @Override
    public void setContentLengthLong(long len) {
        // computed from the buffered body when the response is sent
    }

    @Override
    public void setLocale(Locale locale) {
        this.locale = locale;
    }

    @Override
    public Locale getLocale() {
        return locale;
    }

    private static @Nullable String charsetParameter(String type) {
        for (String parameter : type.split(";")) {
            String p = parameter.strip();
            if (p.regionMatches(true, 0, "charset=", 0, 8)) {
                return p.substring(8).replace("\"", "").strip();
            }
        }
        return null;
    }

    private static boolean isTextual(String type) {
        String t = key(type);
        return t.startsWith("text/") || t.contains("json") || t.contains("xml") || t.contains("javascript");
    }

    // --- body ------------------------------------------------------------------------------------

    @Override
    public ServletOutputStream getOutputStream() {
        if (writer != null) {
            throw new IllegalStateException("getWriter() was already called on this response");
        }
        if (outputStream == null) {
            outputStream = new BufferStream();
        }
        return outputStream;
    }

    @Override
    public PrintWriter getWriter() {
        if (outputStream != null) {
            throw new IllegalStateException("getOutputStream() was already called on this response");
        }
        if (writer == null) {
            writer = new PrintWriter(new OutputStreamWriter(new BufferStream(), writerCharset()), false);
        }
        return writer;
    }

    private Charset writerCharset() {
        try {
            return Charset.forName(getCharacterEncoding());
        } catch (IllegalCharsetNameException | UnsupportedCharsetException unknown) {
            return StandardCharsets.UTF_8;
        }
    }

    @Override
    public void flushBuffer() {
        // never commits: the client must not see anything before the transaction commits
        if (writer != null) {
            writer.flush();
        }
    }

    @Override
    public boolean isCommitted() {
        return committed;
    }

    @Override
    public void resetBuffer() {
        checkNotCommitted("resetBuffer");
        if (writer != null) {
            writer.flush();
        }
        body.reset();
    }

    @Override
    public void reset() {
        checkNotCommitted("reset");
        resetBuffer();
        status = SC_OK;
        headers.clear();
        cookies.clear();
        contentType = null;
        if (writer == null) {
            characterEncoding = null;
        }
    }

    @Override
    public void setBufferSize(int size) {
        bufferSize = size;
    }

    @Override
    public int getBufferSize() {
        return bufferSize;
    }

    private void checkNotCommitted(String operation) {
        if (committed) {
            throw new IllegalStateException(operation + " after the response was committed");
        }
    }

    /** Appends to the buffer unless the response was committed by sendError or sendRedirect. */
    private final class BufferStream extends ServletOutputStream {
        @Override
        public void write(int b) {
            if (!committed) {
                body.write(b);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) {
            if (!committed) {
                body.write(b, off, len);
            }
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void setWriteListener(WriteListener listener) {
            try {
                listener.onWritePossible();
            } catch (IOException e) {
                listener.onError(e);
            }
        }
    }
}
