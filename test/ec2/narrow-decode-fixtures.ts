/**
 * Odd responses in EC2's documented shape (API Reference, DescribeVolumes and DescribeInstances):
 * pretty-printed as the reference's examples are, with elements the adapter does not read (some of
 * them holding `item`s and `volumeId`s of their own), empty sets, escapes, CDATA and a nextToken.
 */
const NS = 'http://ec2.amazonaws.com/doc/2016-11-15/';

export const ODD_VOLUMES = `<?xml version="1.0" encoding="UTF-8"?>
<DescribeVolumesResponse xmlns="${NS}">
    <requestId>59dbff89-35bd-4eac-99ed-be587EXAMPLE</requestId>
    <volumeSet>
        <item>
            <volumeId>vol-0aaaaaaaaaaaaaaa1</volumeId>
            <size>8</size>
            <snapshotId/>
            <availabilityZone>us-east-1a</availabilityZone>
            <status>in-use</status>
            <createTime>2026-11-20T09:00:00.000Z</createTime>
            <attachmentSet>
                <item>
                    <volumeId>vol-0aaaaaaaaaaaaaaa1</volumeId>
                    <instanceId>i-0aaaaaaaaaaaaaaa1</instanceId>
                    <device>/dev/sdf</device>
                    <status>attached</status>
                    <attachTime>2026-11-20T10:00:00.000Z</attachTime>
                    <deleteOnTermination>false</deleteOnTermination>
                    <associatedResource>arn:aws:ecs:us-east-1:123456789012:task/example</associatedResource>
                </item>
                <item>
                    <volumeId>vol-0aaaaaaaaaaaaaaa1</volumeId>
                    <instanceId>i-0aaaaaaaaaaaaaaa2</instanceId>
                    <device>/dev/sdg</device>
                    <status>attaching</status>
                    <attachTime>2026-11-20T10:05:00.000Z</attachTime>
                    <deleteOnTermination>false</deleteOnTermination>
                </item>
            </attachmentSet>
            <tagSet>
                <item>
                    <key>team</key>
                    <value>a&amp;b &lt;c&gt; &quot;d&quot; &apos;e&apos; &#233;</value>
                </item>
                <item>
                    <key>note</key>
                    <value><![CDATA[<raw & unescaped>]]></value>
                </item>
                <item>
                    <key>empty</key>
                    <value/>
                </item>
            </tagSet>
            <volumeType>io2</volumeType>
            <iops>3000</iops>
            <encrypted>true</encrypted>
            <kmsKeyId>arn:aws:kms:us-east-1:123456789012:key/0a1b2c3d-1111-2222-3333-444455556666</kmsKeyId>
            <multiAttachEnabled>true</multiAttachEnabled>
            <fastRestored>false</fastRestored>
            <operator>
                <managed>false</managed>
            </operator>
            <futureSet>
                <item><volumeId>vol-0ffffffffffffffff</volumeId><instanceId>i-0ffffffffffffffff</instanceId></item>
            </futureSet>
        </item>
        <item>
            <volumeId>vol-0aaaaaaaaaaaaaaa2</volumeId>
            <size>100</size>
            <availabilityZone>us-east-1b</availabilityZone>
            <status>available</status>
            <createTime>2026-11-20T09:00:00.000Z</createTime>
            <attachmentSet/>
            <tagSet></tagSet>
            <volumeType>gp3</volumeType>
            <encrypted>false</encrypted>
            <multiAttachEnabled>false</multiAttachEnabled>
        </item>
    </volumeSet>
    <futureSet>
        <item><volumeId>vol-0eeeeeeeeeeeeeeee</volumeId></item>
    </futureSet>
    <nextToken>eyJ2IjoxfQ==</nextToken>
</DescribeVolumesResponse>`;

/** The same answer with every element under a namespace prefix instead of the default namespace (CDATA as escapes). */
export const PREFIXED_VOLUMES = ODD_VOLUMES.replace('<![CDATA[<raw & unescaped>]]>', '&lt;raw &amp; unescaped&gt;')
  .replace(`xmlns="${NS}"`, `xmlns:ec2="${NS}"`)
  .replace(/<(\/?)([A-Za-z])/g, '<$1ec2:$2');

export const ODD_INSTANCES = `<?xml version="1.0" encoding="UTF-8"?>
<DescribeInstancesResponse xmlns="${NS}">
    <requestId>8f7724cf-496f-496e-8fe3-example</requestId>
    <reservationSet>
        <item>
            <reservationId>r-1234567890abcdef0</reservationId>
            <ownerId>123456789012</ownerId>
            <groupSet/>
            <instancesSet>
                <item>
                    <instanceId>i-0aaaaaaaaaaaaaaa1</instanceId>
                    <imageId>ami-0abcdef1234567890</imageId>
                    <instanceState>
                        <code>16</code>
                        <name>running</name>
                    </instanceState>
                    <placement>
                        <availabilityZone>us-east-1a</availabilityZone>
                        <groupName/>
                        <tenancy>default</tenancy>
                    </placement>
                    <blockDeviceMapping>
                        <item>
                            <deviceName>/dev/xvda</deviceName>
                            <ebs>
                                <volumeId>vol-0aaaaaaaaaaaaaaa9</volumeId>
                                <status>attached</status>
                                <attachTime>2026-11-20T09:00:00.000Z</attachTime>
                                <deleteOnTermination>true</deleteOnTermination>
                            </ebs>
                        </item>
                        <item>
                            <deviceName>/dev/sdf</deviceName>
                            <ebs>
                                <volumeId>vol-0aaaaaaaaaaaaaaa1</volumeId>
                                <status>attaching</status>
                                <attachTime>2026-11-20T10:00:00.000Z</attachTime>
                                <deleteOnTermination>false</deleteOnTermination>
                            </ebs>
                        </item>
                    </blockDeviceMapping>
                    <networkInterfaceSet>
                        <item>
                            <networkInterfaceId>eni-0123456789abcdef0</networkInterfaceId>
                            <attachment><status>attached</status><deviceIndex>0</deviceIndex></attachment>
                            <tagSet><item><key>not-the-instance</key><value>x</value></item></tagSet>
                        </item>
                    </networkInterfaceSet>
                    <tagSet>
                        <item><key>Name</key><value>ip-10-0-0-1.ec2.internal</value></item>
                        <item><key>kubernetes.io/cluster/prod</key><value>owned</value></item>
                    </tagSet>
                </item>
                <item>
                    <instanceId>i-0aaaaaaaaaaaaaaa2</instanceId>
                    <instanceState><code>80</code><name>stopped</name></instanceState>
                    <placement><availabilityZone>us-east-1b</availabilityZone></placement>
                    <blockDeviceMapping/>
                </item>
            </instancesSet>
        </item>
    </reservationSet>
    <nextToken>eyJpIjoyfQ==</nextToken>
</DescribeInstancesResponse>`;
