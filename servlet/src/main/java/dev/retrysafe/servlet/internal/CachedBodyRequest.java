package dev.retrysafe.servlet.internal;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A request whose body the filter has already read: every {@link #getInputStream()} and
 * {@link #getReader()} reads the kept bytes from the start, and urlencoded form fields are parsed
 * from them too (the container can no longer read them). Not threadsafe, like any request.
 */
final class CachedBodyRequest extends HttpServletRequestWrapper {

    private final byte[] body;
    private @Nullable Map<String, String[]> parameters;

    CachedBodyRequest(HttpServletRequest request, byte[] body) {
        super(request);
        this.body = body;
    }

    @Override
    public ServletInputStream getInputStream() {
        return new BytesInputStream(body);
    }

    @Override
    public BufferedReader getReader() {
        return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body), charset()));
    }

    @Override
    public int getContentLength() {
        return body.length;
    }

    @Override
    public long getContentLengthLong() {
        return body.length;
    }

    @Override
    public @Nullable String getParameter(String name) {
        String[] values = getParameterMap().get(name);
        return values == null || values.length == 0 ? null : values[0];
    }

    @Override
    public Map<String, String[]> getParameterMap() {
        if (parameters == null) {
            parameters = mergedParameters();
        }
        return parameters;
    }

    @Override
    public Enumeration<String> getParameterNames() {
        return Collections.enumeration(getParameterMap().keySet());
    }

    @Override
    public String @Nullable [] getParameterValues(String name) {
        String[] values = getParameterMap().get(name);
        return values == null ? null : values.clone();
    }

    private Map<String, String[]> mergedParameters() {
        // query parameters from the container, which no longer sees the body
        Map<String, String[]> merged = new LinkedHashMap<>(super.getParameterMap());
        String contentType = getContentType();
        if (contentType != null
                && contentType.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
            for (Map.Entry<String, List<String>> field :
                    FormFields.parse(body, charset()).entrySet()) {
                String[] previous = merged.getOrDefault(field.getKey(), new String[0]);
                String[] values = new String[previous.length + field.getValue().size()];
                System.arraycopy(previous, 0, values, 0, previous.length);
                for (int i = 0; i < field.getValue().size(); i++) {
                    values[previous.length + i] = field.getValue().get(i);
                }
                merged.put(field.getKey(), values);
            }
        }
        return Collections.unmodifiableMap(merged);
    }

    private Charset charset() {
        String name = getCharacterEncoding();
        if (name == null) {
            return StandardCharsets.UTF_8;
        }
        try {
            return Charset.forName(name);
        } catch (IllegalCharsetNameException | UnsupportedCharsetException unknown) {
            return StandardCharsets.UTF_8;
        }
    }

    /** A blocking stream over the kept bytes; also ready at once for non-blocking readers. */
    private static final class BytesInputStream extends ServletInputStream {
        private final ByteArrayInputStream in;

        BytesInputStream(byte[] body) {
            this.in = new ByteArrayInputStream(body);
        }

        @Override
        public int read() {
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
            return in.read(b, off, len);
        }

        @Override
        public boolean isFinished() {
            return in.available() == 0;
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
            try {
                if (!isFinished()) {
                    listener.onDataAvailable();
                }
                listener.onAllDataRead();
            } catch (IOException e) {
                listener.onError(e);
            }
        }
    }
}
